# args: --password-env SHOP_PASSWORD
# env: SHOP_PASSWORD=correct horse battery
# The whole journey in batch mode: browse, search, open a product, add it, check out while
# logged out (the checkout waits and the login page opens), create and confirm an account,
# log in (the checkout resumes by itself), pay, see the receipt; then restart and find
# everything still there.
$ content list --category shoes
── Category shoes (10) ──
  #1   Trail Running Shoes               89.00 EUR  shoes
  #2   Road Running Shoes                79.00 EUR  shoes
  #3   Leather Boots                    129.00 EUR  shoes
  #4   Canvas Sneakers                   39.00 EUR  shoes
  #5   Hiking Boots                     119.00 EUR  shoes
  #6   Sandals                           29.00 EUR  shoes
  #7   Slippers                          19.00 EUR  shoes
  #8   Climbing Shoes                    99.00 EUR  shoes
  #9   Red Sneakers                      45.00 EUR  shoes
  #10  Winter Boots                     139.00 EUR  shoes
$ content search red
── Search: red (5) ──
  #9   Red Sneakers                      45.00 EUR  shoes
  #18  Red Scarf                         19.00 EUR  clothing
  #29  Red Mars                          15.90 EUR  books
  #37  Red Teapot                        34.00 EUR  kitchen
  #58  Red USB Cable                      9.00 EUR  electronics
$ content show 9
── #9 Red Sneakers ──
45.00 EUR · shoes
Bright red canvas high-tops
cart add [QTY] — put this product in the cart · back — return
$ cart add
── Cart (1 item) ──
  #9   Red Sneakers                   1 × 45.00 EUR = 45.00 EUR
  subtotal 45.00 EUR
  total 45.00 EUR
cart checkout — check out
$ cart add 12 3
── Cart (4 items) ──
  #9   Red Sneakers                   1 × 45.00 EUR = 45.00 EUR
  #12  Rain Jacket                    3 × 119.00 EUR = 357.00 EUR
  subtotal 402.00 EUR
  total 402.00 EUR
cart checkout — check out
$ cart checkout
── Log in ──
account login EMAIL — asks for the password (or takes it from --password-env)
account create EMAIL — no account yet?
note: cartCheckout() is waiting at coordinator cart for user: log in to continue the checkout ('account login EMAIL')
$ queue
coordinator cart: 1/32
  cartCheckout() waiting for user
$ account create ann@example.com
── Confirm your account ──
account outbox — see the code · account confirm CODE — use it
note: created ann@example.com; a confirmation code was sent: 'account outbox' shows it, 'account confirm CODE' uses it
$ account outbox
── Outbox (1) ──
  #1 {{*}} to ann@example.com: Confirm your coordsh shop account
      Your confirmation code is {{code}}. Run: account confirm {{code}}
$ account confirm {{code}}
── Log in ──
account login EMAIL — asks for the password (or takes it from --password-env)
account create EMAIL — no account yet?
note: confirmed ann@example.com; log in with 'account login ann@example.com'
$ account login ann@example.com
── Checkout (4 items, 402.00 EUR) ──
  #9   Red Sneakers                   1 × 45.00 EUR = 45.00 EUR
  #12  Rain Jacket                    3 × 119.00 EUR = 357.00 EUR
  subtotal 402.00 EUR
  total 402.00 EUR
payment pay CARD_NUMBER — pay 402.00 EUR (checkout {{*}})
note: logged in as ann@example.com
note: cartCheckout() replayed at coordinator cart
$ queue
no queued messages
$ cart offer welcome10
── Cart (4 items) ──
  #9   Red Sneakers                   1 × 45.00 EUR = 45.00 EUR
  #12  Rain Jacket                    3 × 119.00 EUR = 357.00 EUR
  subtotal 402.00 EUR
  offer WELCOME10 −40.20 EUR
  total 361.80 EUR
cart checkout — check out
note: promo code WELCOME10 applied: 10% off, until 2099-12-31
$ payment pay 4242 4242 4242 4242
── Receipt for order 1 (ann@example.com) ──
  #9   Red Sneakers                   1 × 45.00 EUR
  #12  Rain Jacket                    3 × 119.00 EUR
  subtotal 402.00 EUR
  offer WELCOME10 −40.20 EUR
  total 361.80 EUR paid with Visa …4242 on {{*}} UTC
note: paid: order 1
$ where
route: payment/receipt orderID=1
  1. page payment/receipt orderID=1
  2. coordinator payment
  3. scene terminal
  4. app
$ cart show
── Cart (0 items) ──
(empty)
# restart
$ account whoami
── Not logged in ──
account login EMAIL — log in
$ account login ann@example.com
── Logged in as ann@example.com ──
account logout — log out
note: logged in as ann@example.com
$ payment orders
── Orders of ann@example.com (1) ──
  order 1  361.80 EUR  paid {{*}} UTC
$ payment receipt 1
── Receipt for order 1 (ann@example.com) ──
  #9   Red Sneakers                   1 × 45.00 EUR
  #12  Rain Jacket                    3 × 119.00 EUR
  subtotal 402.00 EUR
  offer WELCOME10 −40.20 EUR
  total 361.80 EUR paid with Visa …4242 on {{*}} UTC
$ cart show
── Cart (0 items) ──
(empty)
