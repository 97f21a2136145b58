// The baseline for start-up and memory: the smallest Swift program that does what the measured
// `coordsh -c 'echo ok'` does — prints a line and exits. Fed lines on stdin, it answers
// `echo X` with X (flushed at once, as the shell's output is), so that its peak memory can be
// read while it waits, as the shell's is.
#if canImport(Glibc)
import Glibc
#endif

while let line = readLine() {
    print(line.hasPrefix("echo ") ? String(line.dropFirst(5)) : line)
    fflush(nil)
}
if CommandLine.arguments.count == 1 { print("ok") }
