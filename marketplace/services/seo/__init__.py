"""What crawlers and link previews read beside the pages: `robots.txt` (`robots`), the sitemap (`sitemap`) and
the preview images (`previews` finds what an image shows and keeps it; `preview_image` draws it)."""
