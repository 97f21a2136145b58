# `config` names the file in force, what was looked at and where each value came from;
# `quit` ends the shell (CommandLineTests checks that nothing after it runs).
$ config
config file: {{*}}/config/coordsh.toml (--config)
looked at, in order:
  --config                                   {{*}}/config/coordsh.toml  ← read
values (a file's keys over the built-in defaults, key by key):
  cart.offers = [ { code = 'WELCOME10', expires = '2099-12-31', percent = 10 }, { amount = 500, code = 'FIVEOFF', expires = '2099-12-31' }, { code = 'SUMMER20', expires = '2020-09-30', percent = 20 } ]  {{*}}/config/coordsh.toml
  data.busy_timeout = 2                                      {{*}}/config/coordsh.toml
  data.statement_timeout = 30                                {{*}}/config/coordsh.toml
  plugins.accounting = true                                  {{*}}/config/coordsh.toml
  plugins.dirs = [ '$SDK_DIR', '$XDG_DATA_HOME/coordsh/plugins' ]  {{*}}/config/coordsh.toml
  plugins.require_sandbox = false                            {{*}}/config/coordsh.toml
  plugins.slow_handler = 1                                   {{*}}/config/coordsh.toml
  serve.allow_root = false                                   {{*}}/config/coordsh.toml
  serve.drain_timeout = 10                                   {{*}}/config/coordsh.toml
  serve.handshake_timeout = 5                                {{*}}/config/coordsh.toml
  serve.max_clients = 64                                     {{*}}/config/coordsh.toml
  serve.metrics_any_address = false                          {{*}}/config/coordsh.toml
  serve.outbound_limit = 4194304                             {{*}}/config/coordsh.toml
  shell.home = 'content/catalog'                             {{*}}/config/coordsh.toml
  shell.worker_timeout = 30                                  {{*}}/config/coordsh.toml
in force:
  plugin folders     $BUILD, $TMP/data/coordsh/plugins
  database           $TMP/data/coordsh/shop.sqlite  (default)
  history            $TMP/.local/state/coordsh/history
  verdict cache      $TMP/.cache/coordsh/plugin-verdicts.tsv
$ quit
