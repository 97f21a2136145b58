# On a product page `cart add` sends cartAdd from the page; it bubbles up to the app, which
# starts the Cart coordinator lazily and delivers it there.
$ open content/product id=7
── #7 Slippers ──
19.00 EUR · shoes
Wool-lined house slippers
cart add [QTY] — put this product in the cart · back — return
$ trace cart add
trace cartAdd():
  1. page content/product id=7 — passed on
  2. coordinator content — passed on
  3. scene terminal — passed on
  4. app — routed to coordinator cart
  5. coordinator cart — handled
── Cart (1 item) ──
  #7   Slippers                       1 × 19.00 EUR = 19.00 EUR
  subtotal 19.00 EUR
  total 19.00 EUR
cart checkout — check out
$ cart add 12 3
── Cart (4 items) ──
  #7   Slippers                       1 × 19.00 EUR = 19.00 EUR
  #12  Rain Jacket                    3 × 119.00 EUR = 357.00 EUR
  subtotal 376.00 EUR
  total 376.00 EUR
cart checkout — check out
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
── Log in ──
account login EMAIL — asks for the password (or takes it from --password-env)
account create EMAIL — no account yet?
$ queue
no queued messages
$ deps
at coordinator account:
  accounts  from account  (AccountService)
  carts  from cart  (CartService)
  content  from content  (ContentStore)
  data  from host  (ScopedData)
  host  from host  (HostEnvironment)
  passwords  from host  (ScryptPasswordHasher)
  sceneLogins  from account  (AccountSceneLogins)
  secrets  from host  (SecretPrompt)
  visitor  from host, scene terminal  (SceneVisitor)
