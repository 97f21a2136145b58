# Every bad cart input is one line and changes nothing; a guest cart survives a restart and
# is merged into the user's cart at login.
# args: --password-env PW --keep-going
# env: PW=a long enough password
$ cart add 999
coordsh: error: cart add: there is no product 999; 'content list' shows the catalog
$ cart add 3 0
coordsh: error: cart add: the quantity must be between 1 and 999, got 0
$ cart add 3 -2
coordsh: error: cart add: the quantity must be between 1 and 999, got -2
$ cart add 3 1000
coordsh: error: cart add: the quantity must be between 1 and 999, got 1000
$ cart add 3 2
── Cart (2 items) ──
  #3   Leather Boots                  2 × 129.00 EUR = 258.00 EUR
  subtotal 258.00 EUR
  total 258.00 EUR
cart checkout — check out
$ cart add 3 998
coordsh: error: cart add: at most 999 of product 3 per cart (the cart has 2)
$ cart set 4 2
coordsh: error: cart set: product 4 is not in the cart; use 'cart add 4 2'
$ cart set 3 0
coordsh: error: cart set: the quantity must be between 1 and 999, got 0
$ cart remove 5
coordsh: error: cart remove: product 5 is not in the cart
$ cart offer NOPE
coordsh: error: cart offer: unknown promo code 'NOPE'
$ cart offer SUMMER20
coordsh: error: cart offer: promo code 'SUMMER20' expired on 2020-09-30
$ open cart/offer code=FIVEOFF
── Offer FIVEOFF ──
5.00 off, until 2099-12-31
cart offer FIVEOFF — apply it to the cart
$ cart offer fiveoff
── Cart (2 items) ──
  #3   Leather Boots                  2 × 129.00 EUR = 258.00 EUR
  subtotal 258.00 EUR
  offer FIVEOFF −5.00 EUR
  total 253.00 EUR
cart checkout — check out
note: promo code FIVEOFF applied: 5.00 off, until 2099-12-31
$ cart show
── Cart (2 items) ──
  #3   Leather Boots                  2 × 129.00 EUR = 258.00 EUR
  subtotal 258.00 EUR
  offer FIVEOFF −5.00 EUR
  total 253.00 EUR
cart checkout — check out
$ cart checkout
── Log in ──
account login EMAIL — asks for the password (or takes it from --password-env)
account create EMAIL — no account yet?
note: cartCheckout() is waiting at coordinator cart for user: log in to continue the checkout ('account login EMAIL')
# restart
$ cart show
── Cart (2 items) ──
  #3   Leather Boots                  2 × 129.00 EUR = 258.00 EUR
  subtotal 258.00 EUR
  offer FIVEOFF −5.00 EUR
  total 253.00 EUR
cart checkout — check out
$ account create bob@example.com
── Confirm your account ──
account outbox — see the code · account confirm CODE — use it
note: created bob@example.com; a confirmation code was sent: 'account outbox' shows it, 'account confirm CODE' uses it
$ account outbox
── Outbox (1) ──
  #1 {{*}} to bob@example.com: Confirm your coordsh shop account
      Your confirmation code is {{code}}. Run: account confirm {{code}}
$ account confirm {{code}}
── Log in ──
account login EMAIL — asks for the password (or takes it from --password-env)
account create EMAIL — no account yet?
note: confirmed bob@example.com; log in with 'account login bob@example.com'
$ cart checkout
── Log in ──
account login EMAIL — asks for the password (or takes it from --password-env)
account create EMAIL — no account yet?
note: cartCheckout() is waiting at coordinator cart for user: log in to continue the checkout ('account login EMAIL')
$ account login bob@example.com
── Checkout (2 items, 253.00 EUR) ──
  #3   Leather Boots                  2 × 129.00 EUR = 258.00 EUR
  subtotal 258.00 EUR
  offer FIVEOFF −5.00 EUR
  total 253.00 EUR
payment pay CARD_NUMBER — pay 253.00 EUR (checkout {{*}})
note: logged in as bob@example.com
note: cartCheckout() replayed at coordinator cart
$ account logout
── Log in ──
account login EMAIL — asks for the password (or takes it from --password-env)
account create EMAIL — no account yet?
note: logged out bob@example.com
$ cart show
── Cart (0 items) ──
(empty)
$ account login bob@example.com
── Logged in as bob@example.com ──
account logout — log out
note: logged in as bob@example.com
$ cart show
── Cart (2 items) ──
  #3   Leather Boots                  2 × 129.00 EUR = 258.00 EUR
  subtotal 258.00 EUR
  offer FIVEOFF −5.00 EUR
  total 253.00 EUR
cart checkout — check out
