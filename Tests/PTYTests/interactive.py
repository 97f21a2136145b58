"""Pseudo-terminal tests of the interactive shell, driven by pexpect.

Run by PTYTests.swift (so `swift test` runs them): python3 interactive.py COORDSH CONFIG
CRASHER_V1 CRASHER_V2 INTRUDER (the crasher fixture plugin in versions 1.0.0 and 2.0.0, the
intruder fixture built to declare `read products` and `service secrets`).
Each check prints one line; any failure raises and the exit status is non-zero.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import pexpect

COORDSH, CONFIG, CRASHER_V1, CRASHER_V2, INTRUDER = sys.argv[1:6]
PROMPT = r"coordsh[^\r\n]*> "
ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


def start(home, extra_env=None, args=(), config=CONFIG):
    child = spawn(home, extra_env, args, config)
    child.expect(PROMPT)
    return child


def spawn(home, extra_env=None, args=(), config=CONFIG):
    """The shell started, without waiting for its prompt (it may ask something first)."""
    env = {"HOME": home, "XDG_DATA_HOME": home + "/data", "XDG_STATE_HOME": home + "/state",
           "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "xterm", "LANG": "C.UTF-8"}
    if "LLVM_PROFILE_FILE" in os.environ:  # ./test --coverage: the shell writes its profile
        env["LLVM_PROFILE_FILE"] = os.environ["LLVM_PROFILE_FILE"]
    env.update(extra_env or {})
    return pexpect.spawn(COORDSH, ["--config", config, *args], env=env, encoding="utf-8", timeout=20,
                         dimensions=(40, 200))


def kill_worker(child):
    """SIGKILL of the one `coordsh-server worker` under a supervised shell."""
    workers = subprocess.run(["pgrep", "-P", str(child.pid), "-f", "coordsh-server worker"], capture_output=True, text=True).stdout.split()
    assert len(workers) == 1, workers
    os.kill(int(workers[0]), 9)


def clear_line(child):
    child.send("\x03")  # Ctrl-C: cancel the line
    child.expect(r"\^C")
    child.expect(PROMPT)


def plugin_folder(home, name, bundled=False):
    """A plugin folder the loader accepts (0755) and a config whose only plugin folder it is
    (with the bundled plugins' folder too when `bundled`)."""
    folder = home + "/" + name
    os.mkdir(folder, 0o755)
    os.chmod(folder, 0o755)
    config = home + "/" + name + ".toml"
    dirs = '"$SDK_DIR", "%s"' % folder if bundled else '"%s"' % folder
    with open(CONFIG) as shipped, open(config, "w") as own:
        own.write(re.sub(r"(?m)^dirs = .*$", "dirs = [%s]" % dirs, shipped.read()))
    return folder, config


home = tempfile.mkdtemp(prefix="coordsh-pty-")
try:
    child = start(home, {"NO_COLOR": "1"})

    # libedit redraws only what Tab inserts, so each check completes, presses Enter and looks
    # at what the completed command did.

    # Completion of a command and a verb: "ca<Tab>sh<Tab>" runs "cart show".
    child.send("ca\t")
    child.send("sh\t")
    child.send("\r")
    child.expect("── Cart \\(0 items\\) ──")
    child.expect(PROMPT)
    print("ok completes a command and a verb")

    # Completion of a route and of its parameter name: "open content/pro<Tab>i<Tab>9".
    child.send("open content/pro\t")
    child.send("i\t")
    child.send("9\r")
    child.expect("── #9 Red Sneakers ──")
    child.expect(PROMPT)
    print("ok completes a route and its parameter")

    # Completion of a value the plugin lists: the promo codes from the config.
    child.send("cart offer WEL\t")
    child.send("\r")
    child.expect("promo code WELCOME10 applied")
    child.expect(PROMPT)
    print("ok completes a value (promo code)")

    # Completion after `help PREFIX`, after `trace`, of `plugins load`, of an option name and
    # of a value typed as name=value.
    child.send("help cart a\t")
    child.send("\r")
    child.expect("usage: cart add \\[PRODUCTID\\] \\[QUANTITY\\]")
    child.expect(PROMPT)
    child.send("trace ca\t")
    child.send("sh\t")
    child.send("\r")
    child.expect("cartShow")
    child.expect(PROMPT)
    child.send("plugins lo\t")
    child.send("/nonexistent/libX.so\r")
    child.expect("coordsh: error: refused plugin /nonexistent/libX.so")
    child.expect(PROMPT)
    child.send("cart add 9 --qu\t")
    child.send(" 2\r")
    child.expect("#9   Red Sneakers +2 ×")
    child.expect(PROMPT)
    child.send("cart offer code=FIV\t")
    child.send("\r")
    child.expect("promo code FIVEOFF applied")
    child.expect(PROMPT)
    child.sendline("cart offer WELCOME10")
    child.expect(PROMPT)
    print("ok completes after help and trace, plugins load, an option and a name=value")

    # A password is asked with echo off, twice when it is new; two that differ change nothing.
    child.sendline("account create pty@example.com")
    child.expect("password for pty@example.com: ")
    child.send("first password 1\r")
    child.expect("\\(again\\): ")
    child.send("second password 2\r")
    child.expect("coordsh: error: the two passwords differ; nothing was changed")
    child.expect(PROMPT)
    assert "password 1" not in child.before and "password 2" not in child.before, repr(child.before)
    child.sendline("account create pty@example.com")
    child.expect("password for pty@example.com: ")
    child.send("same password 3\r")
    child.expect("\\(again\\): ")
    child.send("same password 3\r")
    child.expect("note: created pty@example.com")
    child.expect(PROMPT)
    assert "same password" not in child.before, repr(child.before)
    child.sendline("cart show")
    child.expect(PROMPT)
    print("ok passwords are asked with echo off, twice, and must match")

    # Ctrl-C keeps the shell alive.
    child.send("content search something half typed")
    clear_line(child)
    child.sendline("where")
    child.expect("route: cart/cart")
    child.expect(PROMPT)
    print("ok Ctrl-C cancels the line and the shell goes on")

    # No colour escapes with NO_COLOR, even on a terminal.
    child.sendline("cart show")
    child.expect(PROMPT)
    assert not ESCAPE.search(child.before), repr(child.before)
    print("ok no colour escapes with NO_COLOR")

    # A secret argument never enters history.
    child.sendline("payment pay 4242424242424242")
    child.expect(PROMPT)

    # Ctrl-D on an empty line exits cleanly.
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.exitstatus
    print("ok Ctrl-D exits with status 0")

    history = open(home + "/state/coordsh/history").read()
    assert "4242424242424242" not in history, history
    assert "password" not in history.replace("\\040", " ").replace("--password-env", ""), history
    assert "cart offer WELCOME10" in history.replace("\\040", " "), history
    print("ok history kept, card number left out")

    # History is recalled after a restart (Up arrow), and colours are on without NO_COLOR.
    child = start(home)
    child.send("\x1b[A")
    child.expect("cart show")
    child.send("\r")
    child.expect(r"\x1b\[1;36m── Cart")
    child.expect(PROMPT)
    print("ok history recalled after a restart; headings coloured on a terminal")
    child.sendeof()
    child.expect(pexpect.EOF)

    # --no-history neither reads nor writes it.
    child = start(home, args=("--no-history",))
    child.sendline("echo private")
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    assert "private" not in open(home + "/state/coordsh/history").read()
    print("ok --no-history keeps nothing")

    # A plugin copied into a watched folder while a line is half typed: it is announced above
    # the prompt, and the half-typed line is still there to finish.
    # (In one process, --single-process: the shell's own watcher, not a worker's.)
    drop, config = plugin_folder(home, "drop")
    child = start(home, {"NO_COLOR": "1"}, config=config, args=("--single-process",))
    child.send("con")
    shutil.copy(os.path.join(os.path.dirname(COORDSH), "libContentPlugin.so"), drop)
    child.expect("note: loaded plugin content [0-9.]+ from " + re.escape(drop) + "/libContentPlugin.so")
    child.expect(PROMPT + "con")
    child.send("tent list --category books\r")
    child.expect("── Category books \\(10\\) ──")
    child.expect(PROMPT)
    print("ok a plugin dropped into a watched folder appears at the prompt")
    child.sendeof()
    child.expect(pexpect.EOF)

    # coordsh connect at a terminal: the same line editor, completion answered by the server,
    # its prompt naming the server, Ctrl-C and Ctrl-D as in-process, and a plugin dropped into
    # the server's watched folder announced at the prompt of the attached shell.
    run_dir = home + "/run"
    os.mkdir(run_dir, 0o700)
    served, config = plugin_folder(home, "served")
    for plugin in ("Content", "Account", "Cart"):
        shutil.copy(os.path.join(os.path.dirname(COORDSH), "lib%sPlugin.so" % plugin), served)
    server_env = {"HOME": home, "XDG_DATA_HOME": home + "/data", "XDG_STATE_HOME": home + "/state",
                  "XDG_RUNTIME_DIR": run_dir, "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
    if "LLVM_PROFILE_FILE" in os.environ:
        server_env["LLVM_PROFILE_FILE"] = os.environ["LLVM_PROFILE_FILE"]
    server = subprocess.Popen([COORDSH, "serve", "--config", config], env=server_env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            if os.path.exists(run_dir + "/coordsh/default.sock"):
                break
            time.sleep(0.05)
        child = pexpect.spawn(COORDSH, ["connect", "--config", config],
                              env=dict(server_env, TERM="xterm", NO_COLOR="1"),
                              encoding="utf-8", timeout=20, dimensions=(40, 200))
        child.expect(r"coordsh@default[^\r\n]*> ")
        child.send("ca\t")
        child.send("sh\t")
        child.send("\r")
        child.expect("── Cart \\(0 items\\) ──")
        child.expect(PROMPT)
        print("ok connect: completion answered by the server")
        child.send("cart add 1 2 half typed")
        clear_line(child)
        child.sendline("where")
        child.expect("route: cart/cart")
        child.expect(PROMPT)
        print("ok connect: Ctrl-C cancels the line and the session goes on")
        child.send("pay")
        shutil.copy(os.path.join(os.path.dirname(COORDSH), "libPaymentPlugin.so"), served)
        child.expect("note: loaded plugin payment [0-9.]+ from " + re.escape(served) + "/libPaymentPlugin.so")
        child.expect(PROMPT + "pay")
        child.send("m\t")
        child.send("or\t")
        child.send("\r")
        child.expect("payment orders: nobody is logged in")
        child.expect(PROMPT)
        print("ok connect: a plugin dropped at the server is announced at the prompt and completes")
        child.sendeof()
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0, child.exitstatus
        print("ok connect: Ctrl-D leaves with status 0; the server goes on")
        assert server.poll() is None, "the server ended with its client"
    finally:
        server.terminate()
        assert server.wait(timeout=20) == 0

    # At a terminal coordsh is supervised by default: the worker killed while the prompt waits is noticed there, replaced, and
    # the session is back on its page with completion working; Ctrl-D leaves no worker behind.
    child = start(home, {"NO_COLOR": "1"}, args=("--db", home + "/supervised.sqlite"))
    child.sendline("cart add 3")
    child.expect(r"coordsh cart/cart> ")
    kill_worker(child)
    child.expect("the app process was killed: SIGKILL \\(Killed\\); restarted, back at cart/cart")
    child.expect(r"coordsh cart/cart> ")
    child.send("ca\t")
    child.send("sh\t")
    child.send("\r")
    child.expect("── Cart \\(1 item\\) ──")
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.exitstatus
    time.sleep(0.3)
    assert subprocess.run(["pgrep", "-P", str(child.pid)], capture_output=True).returncode != 0
    print("ok --supervised: a worker killed at the prompt is replaced, back on the same page")

    # A plugin handler that traps at the prompt: one crash line, the same route in the prompt,
    # the guest's checkout still waiting for a login and going on after it; then a kill of the
    # worker: still logged in. (On the first shell's database, where pty@example.com exists.)
    folder, config = plugin_folder(home, "upgrade", bundled=True)
    shutil.copy(CRASHER_V1, folder + "/libcrasher.so")
    child = start(home, {"NO_COLOR": "1"}, config=config)
    child.sendline("account outbox")
    child.expect(r"account confirm (\d{6})")
    code = child.match.group(1)
    child.expect(PROMPT)
    child.sendline("account confirm " + code)
    child.expect(PROMPT)
    child.sendline("cart add 4")
    child.expect(PROMPT)
    child.sendline("cart checkout")
    child.expect(r"coordsh account/login> ")
    child.sendline("crash now index")
    child.expect(re.escape("coordsh: error: the app process crashed running 'crash now index' in plugin crasher: "
                           "SIGILL (Illegal instruction) — Fatal error: Index out of range; restarted, back at account/login"))
    child.expect(r"coordsh account/login> ")
    child.sendline("queue")
    child.expect(re.escape("cartCheckout() waiting for user"))
    child.expect(PROMPT)
    child.sendline("account login pty@example.com")
    child.expect("Password for pty@example.com: ")
    child.send("same password 3\r")
    child.expect("cartCheckout\\(\\) replayed at coordinator cart")
    child.expect(PROMPT)
    child.sendline("payment pay 4242424242424242")
    child.expect("note: paid: order \\d+")
    child.expect(r"coordsh ([^\r\n]+)> ")
    route = child.match.group(1)
    kill_worker(child)
    child.expect("restarted, back at " + re.escape(route))
    child.expect("note: still logged in as pty@example.com")
    child.expect(PROMPT)
    child.sendline("account whoami")
    child.expect("── Logged in as pty@example.com ──")
    child.expect(PROMPT)
    print("ok a handler's trap at the prompt: one line, same route, the waiting checkout goes on at the login and is paid; a kill keeps the login")

    # A new version of a loaded plugin installed while the prompt waits: a new worker takes the
    # session over, on the same page, and the new version's page completes at the prompt.
    child.sendline("cart add 3")
    child.expect(r"coordsh cart/cart> ")
    shutil.copy(CRASHER_V2, folder + "/.libcrasher.so.new")
    os.rename(folder + "/.libcrasher.so.new", folder + "/libcrasher.so")  # as install(1) does
    child.expect("note: a new version of a loaded plugin arrived: " + re.escape(folder) + "/libcrasher.so")
    child.expect(re.escape("note: upgraded: crasher 2.0.0 (was 1.0.0); the session was handed over to the new app process"))
    child.expect(r"coordsh cart/cart> ")
    child.send("open crasher/n\t")
    child.send("\r")
    child.expect("version 2 is here")
    child.expect(PROMPT)
    child.sendline("cart show")
    child.expect("── Cart \\(1 item\\) ──")
    child.expect(PROMPT)
    child.sendline("account whoami")
    child.expect("── Logged in as pty@example.com ──")
    child.expect(PROMPT)
    child.sendline("plugins upgrade")
    child.expect(re.escape("coordsh: error: upgrade failed: the new app process loaded no new plugin version; the running version keeps serving"))
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.exitstatus
    print("ok a new plugin version dropped in is taken up at the prompt, the session kept; 'plugins upgrade' with nothing new says so")

    # An outside plugin that asks for what is not its own: one prompt at the first start,
    # the answer remembered for its file; a refusal is not asked again, a changed file is.
    folder, config = plugin_folder(home, "grants", bundled=True)
    shutil.copy(INTRUDER, folder + "/libintruder.so")
    asks = re.escape("plugin 'intruder' 1.0.0 (%s/libintruder.so) asks for what is not its own:" % folder)
    question = re.escape("grant all of this to intruder? [y/N] ")
    child = spawn(home, {"NO_COLOR": "1"}, config=config)
    child.expect(asks)
    child.expect(r"  read products\r\n  service secrets\r\n")
    child.expect(question)
    child.sendline("n")
    child.expect(re.escape("refused intruder: read products, service secrets; not asked again for this file ('plugins grant intruder' grants it)"))
    child.expect(PROMPT)
    child.sendline("intrude sql 'SELECT name FROM products WHERE id = 1'")
    child.expect(re.escape("refused 'read products'"))
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    child = start(home, {"NO_COLOR": "1"}, config=config)
    assert "asks for" not in child.before, child.before
    child.sendeof()
    child.expect(pexpect.EOF)
    print("ok an outside plugin's request is asked once at the terminal; a refusal is remembered for its file")

    # A changed file is asked about again; a grant is in force at once and remembered.
    with open(folder + "/libintruder.so", "ab") as plugin:
        plugin.write(b"\0")
    child = spawn(home, {"NO_COLOR": "1"}, config=config)
    child.expect(asks)
    child.expect(question)
    child.sendline("y")
    child.expect(re.escape("granted intruder: read products, service secrets ('plugins revoke intruder' takes it back)"))
    child.expect(PROMPT)
    child.sendline("intrude sql 'SELECT name FROM products WHERE id = 1'")
    child.expect("1 rows: Trail Running Shoes")
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    child = start(home, {"NO_COLOR": "1"}, config=config)
    assert "asks for" not in child.before, child.before
    child.sendline("intrude sql 'SELECT name FROM products WHERE id = 1'")
    child.expect("1 rows: Trail Running Shoes")
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    print("ok a changed file is asked about again; what is granted holds at once and in the next shell")

    # Dropped into the plugin folder while the prompt waits (another person's grants: none
    # remembered): asked there and then, and the prompt comes back.
    folder, config = plugin_folder(home, "dropped", bundled=True)
    child = start(home, {"NO_COLOR": "1", "XDG_CONFIG_HOME": home + "/other-config"}, config=config)
    shutil.copy(INTRUDER, folder + "/.libintruder.so.new")
    os.rename(folder + "/.libintruder.so.new", folder + "/libintruder.so")
    child.expect(re.escape("note: loaded plugin intruder 1.0.0 from %s/libintruder.so" % folder))
    child.expect(re.escape("plugin 'intruder' 1.0.0 (%s/libintruder.so) asks for what is not its own:" % folder))
    child.expect(question)
    child.sendline("y")
    child.expect("granted intruder: read products, service secrets")
    child.expect(PROMPT)
    child.sendline("intrude sql 'SELECT name FROM products WHERE id = 1'")
    child.expect("1 rows: Trail Running Shoes")
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    print("ok a plugin dropped in while the prompt waits is asked about there")
finally:
    shutil.rmtree(home, ignore_errors=True)
