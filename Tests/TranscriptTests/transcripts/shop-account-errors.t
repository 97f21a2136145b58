# Account mistakes, each one line: a bad address, a short password, a taken address, a
# wrong code, an unconfirmed account, a wrong password, no password at all.
# args: --password-env PW --keep-going
# env: PW=short
$ account create not-an-email
coordsh: error: 'not-an-email' is not an email address (like ann@example.com)
$ account create cat@example.com
coordsh: error: account create: the password must have at least 8 characters
# restart
# env: PW=long enough password
$ account create cat@example.com
── Confirm your account ──
account outbox — see the code · account confirm CODE — use it
note: created cat@example.com; a confirmation code was sent: 'account outbox' shows it, 'account confirm CODE' uses it
$ account create CAT@example.com
coordsh: error: account create: CAT@example.com is already registered; log in with 'account login CAT@example.com'
$ account confirm 12345x
coordsh: error: account confirm: no account waits for code '12345x'; 'account outbox' shows the codes sent
$ account login cat@example.com
coordsh: error: account login: cat@example.com is not confirmed yet; find the code with 'account outbox', then 'account confirm CODE'
$ account login nobody@example.com
coordsh: error: account login: wrong email or password
$ account logout
coordsh: error: account logout: nobody is logged in
$ account outbox
── Outbox (1) ──
  #1 {{*}} to cat@example.com: Confirm your coordsh shop account
      Your confirmation code is {{code}}. Run: account confirm {{code}}
$ account confirm {{code}}
── Log in ──
account login EMAIL — asks for the password (or takes it from --password-env)
account create EMAIL — no account yet?
note: confirmed cat@example.com; log in with 'account login cat@example.com'
$ account confirm {{code}}
coordsh: error: account confirm: no account waits for code '{{code}}'; 'account outbox' shows the codes sent
# restart
# env: PW=wrong password!
$ account login cat@example.com
coordsh: error: account login: wrong email or password
# restart
# env: PW=
$ account login cat@example.com
coordsh: error: --password-env PW: the environment variable PW is not set or empty
[exit 1]
