# Pages open by route or URL, `back` returns, and the prompt route follows (see `where`).
$ where
route: content/catalog
  1. page content/catalog
  2. coordinator content
  3. scene terminal
  4. app
$ open content/product id=7
── Product 7 ──
cart add — put this product in the cart
back — return
$ open coordsh://content/search?query=red%20shoes
── Search: red shoes ──
content show ID — open a product
$ where
route: content/search query="red shoes"
  1. page content/search query="red shoes"
  2. coordinator content
  3. scene terminal
  4. app
$ back
── Product 7 ──
cart add — put this product in the cart
back — return
$ back
── Catalog ──
content show ID — open a product
content search TEXT — search
$ back
coordsh: error: nowhere to go back to
[exit 1]
