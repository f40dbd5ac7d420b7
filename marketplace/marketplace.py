import reflex as rx
from fastapi import FastAPI

api = FastAPI()

@api.get("/api/ping2")
def ping2():
    return {"ok": True}

def index() -> rx.Component:
    return rx.text("hello")

app = rx.App(api_transformer=api)
app.add_page(index, route="/")
