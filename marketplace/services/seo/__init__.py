"""What the web reads of the public pages before any script runs: heads, content, robots, sitemap, previews."""
