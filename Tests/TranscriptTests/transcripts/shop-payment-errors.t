# Payment mistakes, each one line with nothing charged: no login, no checkout, a card number
# that is not one, fails Luhn or is too short, the declined test card; then a payment, and
# paying the same checkout again.
# args: --password-env PW --keep-going
# env: PW=long enough password
$ payment pay 4242424242424242
coordsh: error: payment pay: nobody is logged in; 'account login EMAIL' first
$ account create dan@example.com
── Confirm your account ──
account outbox — see the code · account confirm CODE — use it
note: created dan@example.com; a confirmation code was sent: 'account outbox' shows it, 'account confirm CODE' uses it
$ account outbox
── Outbox (1) ──
  #1 {{*}} to dan@example.com: Confirm your coordsh shop account
      Your confirmation code is {{code}}. Run: account confirm {{code}}
$ account confirm {{code}}
── Log in ──
account login EMAIL — asks for the password (or takes it from --password-env)
account create EMAIL — no account yet?
note: confirmed dan@example.com; log in with 'account login dan@example.com'
$ account login dan@example.com
── Logged in as dan@example.com ──
account logout — log out
note: logged in as dan@example.com
$ payment pay 4242424242424242
coordsh: error: payment pay: nothing to pay; 'cart checkout' first
$ cart add 40 2
── Cart (2 items) ──
  #40  Bread Tin                      2 × 16.00 EUR = 32.00 EUR
  subtotal 32.00 EUR
  total 32.00 EUR
cart checkout — check out
$ cart checkout
── Checkout (2 items, 32.00 EUR) ──
  #40  Bread Tin                      2 × 16.00 EUR = 32.00 EUR
  subtotal 32.00 EUR
  total 32.00 EUR
payment pay CARD_NUMBER — pay 32.00 EUR (checkout {{*}})
$ payment pay 4242-4242-abcd
coordsh: error: payment pay: '…4242' is not a card number (digits only)
$ payment pay 4242 4242 4242 4241
coordsh: error: payment pay: card number …4241 is not valid (Luhn check failed)
$ payment pay 4242
coordsh: error: payment pay: a card number has 12 to 19 digits, this one has 4
$ payment pay 4000 0000 0000 0002
coordsh: error: payment pay: card Visa …0002 was declined; nothing was charged
$ payment orders
── Orders of dan@example.com (0) ──
(none yet)
$ payment pay 5555 5555 5555 4444
── Receipt for order 1 (dan@example.com) ──
  #40  Bread Tin                      2 × 16.00 EUR
  subtotal 32.00 EUR
  total 32.00 EUR paid with Mastercard …4444 on {{*}} UTC
note: paid: order 1
$ payment pay 5555 5555 5555 4444
coordsh: error: payment pay: this checkout is already paid (order 1); nothing was charged. 'payment receipt 1' shows it
$ payment receipt 2
coordsh: error: payment receipt: dan@example.com has no order 2; 'payment orders' lists them
$ cart checkout
coordsh: error: cart checkout: the cart is empty; 'cart add PRODUCT_ID' first
[exit 1]
