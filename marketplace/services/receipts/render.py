"""A receipt as a printable HTML page and as a PDF (fpdf2): the same `Document` text in both, the credit note of
a refunded order after its receipt."""

from __future__ import annotations

from html import escape

from fpdf import FPDF

from marketplace.services.receipts.documents import Document, ReceiptView, receipt_path

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #111; margin: 0;
       background: #f4f4f5; }
main { max-width: 720px; margin: 24px auto; padding: 0 12px; }
.doc { background: #fff; border: 1px solid #ddd; border-radius: 8px; padding: 24px; margin-bottom: 16px; }
.head { display: flex; flex-wrap: wrap; justify-content: space-between; gap: 8px; align-items: baseline; }
h1 { font-size: 1.5rem; margin: 0; }
.status { font-weight: 700; color: #15803d; border: 1px solid #15803d; border-radius: 4px; padding: 2px 8px; }
.status.refunded { color: #52525b; border-color: #52525b; }
.parties { display: grid; grid-template-columns: repeat(auto-fit, minmax(200px, 1fr)); gap: 16px; margin: 16px 0; }
.label { font-size: .75rem; text-transform: uppercase; color: #666; letter-spacing: .04em; }
table { width: 100%; border-collapse: collapse; margin-top: 8px; }
td { padding: 6px 0; border-bottom: 1px solid #eee; vertical-align: top; }
td.amount { text-align: right; white-space: nowrap; padding-left: 12px; }
tr.total-row td { font-weight: 700; border-bottom: none; }
.actions { display: flex; gap: 12px; flex-wrap: wrap; margin-bottom: 16px; }
.actions a, .actions button { font: inherit; padding: 6px 12px; border: 1px solid #bbb; border-radius: 6px;
       background: #fff; color: #111; text-decoration: none; cursor: pointer; }
@media print { body { background: #fff; } .actions { display: none; } .doc { border: none; padding: 0; }
               .doc + .doc { page-break-before: always; } }
"""


def _lines(values: list[str]) -> str:
    return "<br>".join(escape(v) for v in values)


def _html_document(doc: Document) -> str:
    refunded = doc.kind == "credit_note"
    refers = (f'<p>Refers to receipt <strong class="refers-to">{escape(doc.refers_to)}</strong></p>'
              if doc.refers_to else "")
    card = f"<p>Paid with {escape(doc.card)}</p>" if doc.card else ""
    return f"""
<section class="doc" id="{escape(doc.kind)}">
  <div class="head">
    <h1>{escape(doc.title)} <span class="number">{escape(doc.number)}</span></h1>
    <span class="status{' refunded' if refunded else ''}">{escape(doc.status)}</span>
  </div>
  <p>Date: <span class="date">{escape(doc.date)}</span></p>
  {refers}
  <div class="parties">
    <div><div class="label">Operator</div>{escape(doc.operator)}<br>Marketplace, collecting payment for the seller</div>
    <div><div class="label">Seller</div><span class="seller">{escape(doc.seller)}</span></div>
    <div><div class="label">Buyer</div><span class="buyer">{_lines(doc.buyer)}</span></div>
  </div>
  <table>
    <tr><td class="line">{escape(doc.line)}</td><td class="amount">{escape(doc.subtotal)}</td></tr>
    <tr><td>Discount</td><td class="amount discount">{escape(doc.discount)}</td></tr>
    <tr class="total-row"><td>Total ({escape(doc.currency)})</td><td class="amount total">{escape(doc.total)}</td></tr>
  </table>
  {card}
</section>"""


def html(view: ReceiptView) -> str:
    """The page `/api/user/orders/{id}/receipt` answers: print it, or download the PDF."""
    docs = [view.receipt] + ([view.credit_note] if view.credit_note else [])
    note = (f'<p class="credit-note-notice">This order was refunded: credit note '
            f'<strong>{escape(view.credit_note.number)}</strong> below.</p>' if view.credit_note else "")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(view.receipt.title)} {escape(view.receipt.number)}</title><style>{_STYLE}</style></head>
<body><main>
<div class="actions">
  <a href="{escape(view.pdf_url or receipt_path(view.order_id, pdf=True))}" id="receipt-pdf" download>Download PDF</a>
  <button type="button" onclick="window.print()" id="receipt-print">Print</button>
  <a href="{escape(view.back_url)}">{escape(view.back_label)}</a>
</div>
{note}
{''.join(_html_document(d) for d in docs)}
</main></body></html>"""


def _latin1(text: str) -> str:
    """The PDF's core font (Helvetica) writes Latin-1 only: the euro sign and the card dots get plain stand-ins,
    anything else a question mark."""
    text = text.replace("€", "EUR ").replace("•", "*")
    return text.encode("latin-1", "replace").decode("latin-1")


def _pdf_document(pdf: FPDF, doc: Document) -> None:
    pdf.add_page()
    width = pdf.w - pdf.l_margin - pdf.r_margin
    pdf.set_font("Helvetica", "B", 18)
    pdf.cell(width * 0.7, 10, _latin1(f"{doc.title} {doc.number}"))
    pdf.set_font("Helvetica", "B", 12)
    pdf.cell(width * 0.3, 10, _latin1(doc.status), align="R", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 10)
    pdf.cell(width, 6, _latin1(f"Date: {doc.date}"), new_x="LMARGIN", new_y="NEXT")
    if doc.refers_to:
        pdf.cell(width, 6, _latin1(f"Refers to receipt {doc.refers_to}"), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    for label, lines in (("Operator", [doc.operator, "Marketplace, collecting payment for the seller"]),
                         ("Seller", [doc.seller]), ("Buyer", doc.buyer)):
        pdf.set_font("Helvetica", "B", 9)
        pdf.cell(width, 5, label.upper(), new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "", 10)
        for line in lines:
            pdf.multi_cell(width, 5, _latin1(line), new_x="LMARGIN", new_y="NEXT")
        pdf.ln(2)
    pdf.ln(2)
    rows = ((doc.line, doc.subtotal, ""), ("Discount", doc.discount, ""), (f"Total ({doc.currency})", doc.total, "B"))
    for text, amount, style in rows:
        pdf.set_font("Helvetica", style, 10)
        y = pdf.get_y()
        pdf.multi_cell(width * 0.75, 6, _latin1(text), new_x="RIGHT", new_y="TOP")
        pdf.set_xy(pdf.l_margin + width * 0.75, y)
        pdf.cell(width * 0.25, 6, _latin1(amount), align="R", new_x="LMARGIN", new_y="NEXT")
        pdf.ln(1)
    if doc.card:
        pdf.ln(2)
        pdf.set_font("Helvetica", "", 10)
        pdf.cell(width, 6, _latin1(f"Paid with {doc.card}"), new_x="LMARGIN", new_y="NEXT")


def pdf(view: ReceiptView) -> bytes:
    """The receipt (and its credit note on a second page) as a PDF."""
    document = FPDF(format="A4")
    document.set_title(_latin1(f"{view.receipt.title} {view.receipt.number}"))
    document.set_creator("AgentMarket")
    _pdf_document(document, view.receipt)
    if view.credit_note is not None:
        _pdf_document(document, view.credit_note)
    return bytes(document.output())


def pdf_filename(view: ReceiptView) -> str:
    return f"receipt-{view.receipt.number}.pdf"
