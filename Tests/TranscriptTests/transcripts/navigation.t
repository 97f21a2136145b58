# Pages open by route or URL, `back` returns, and the prompt route follows (see `where`).
$ where
route: content/catalog
  1. page content/catalog
  2. coordinator content
  3. scene terminal
  4. app
$ open content/product id=7
── #7 Slippers ──
19.00 EUR · shoes
Wool-lined house slippers
cart add [QTY] — put this product in the cart · back — return
$ open coordsh://content/search?query=red%20shoes
── Search: red shoes (1) ──
  #9   Red Sneakers                      45.00 EUR  shoes
$ where
route: content/search query="red shoes"
  1. page content/search query="red shoes"
  2. coordinator content
  3. scene terminal
  4. app
$ back
── #7 Slippers ──
19.00 EUR · shoes
Wool-lined house slippers
cart add [QTY] — put this product in the cart · back — return
$ back
── Catalog (60 products) ──
  books          10 products
  clothing       10 products
  electronics    10 products
  kitchen        10 products
  outdoor        10 products
  shoes          10 products
content list [--category C] — list products · content search TEXT — search · content show ID — a product
$ back
coordsh: error: nowhere to go back to
[exit 1]
