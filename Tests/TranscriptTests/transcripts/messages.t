# On a product page `cart add` sends cartAdd from the page; it bubbles up to the app, which
# starts the Cart coordinator lazily and delivers it there.
$ open content/product id=7
── Product 7 ──
cart add — put this product in the cart
back — return
$ trace cart add
trace cartAdd():
  1. page content/product id=7 — passed on
  2. coordinator content — passed on
  3. scene terminal — passed on
  4. app — routed to coordinator cart
  5. coordinator cart — handled
── Cart (1 item) ──
product 7 × 1
$ cart add 12 3
── Cart (4 items) ──
product 7 × 1
product 12 × 3
$ tree
app
  scene terminal
    coordinator content  [content/catalog › content/product id=7]
    coordinator cart  [cart/cart] *
$ trace open account/login
trace globalDisplay(page: account/login):
  1. page cart/cart — passed on
  2. coordinator cart — passed on
  3. scene terminal — passed on
  4. app — handled
── account/login ──
$ queue
no queued messages
$ deps
at coordinator account:
  host  from host  (HostEnvironment)
