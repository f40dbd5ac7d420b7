"""What the web reads of the public pages before any script runs: each page's head and content (`page_head`,
`public_pages`), `robots.txt` (`robots`), the sitemap (`sitemap`) and the preview images (`previews` finds what an
image shows and keeps it; `preview_image` draws it)."""
