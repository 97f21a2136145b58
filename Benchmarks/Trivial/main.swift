// The start-up baseline: the smallest Swift program that, like `coordsh -c 'echo ok'`, prints
// one line and exits. Same compiler, same flags, same machine.
print("ok")
