package localinfra;

import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.Arrays;

/**
 * Parent-death watchdog wrapper.
 *
 * Usage: java -cp ... localinfra.Watchdog <main.Class> [args...]
 *
 * A daemon thread reads System.in until EOF and then calls System.exit(0), which runs the JVM
 * shutdown hooks (Kafka's clean shutdown, the Mongo launcher's H2 commit). The Node parent
 * spawns the JVM with stdin as a pipe and never closes it, so stdin reaches EOF exactly when the
 * parent dies, even by SIGKILL. SIGTERM/SIGINT go through the normal JVM shutdown hooks.
 * If the clean shutdown hangs, a hard halt follows after LOCALINFRA_HALT_AFTER_MS (default 15000).
 *
 * Set LOCALINFRA_NO_WATCHDOG=1 to run without the stdin watch (e.g. stdin is /dev/null).
 */
public final class Watchdog {
    private Watchdog() {}

    public static void main(String[] args) throws Throwable {
        if (args.length < 1) {
            System.err.println("usage: localinfra.Watchdog <main.Class> [args...]");
            System.exit(2);
        }
        if (!"1".equals(System.getenv("LOCALINFRA_NO_WATCHDOG"))) {
            Thread t = new Thread(Watchdog::watchStdin, "localinfra-parent-watchdog");
            t.setDaemon(true);
            t.start();
        }
        Class<?> mainClass = Class.forName(args[0]);
        Method main = mainClass.getMethod("main", String[].class);
        try {
            main.invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static void watchStdin() {
        byte[] buf = new byte[256];
        try {
            InputStream in = System.in;
            while (in.read(buf) >= 0) {
                // ignore anything the parent writes
            }
        } catch (Throwable ignored) {
            // treat read errors like EOF
        }
        System.err.println("[localinfra] parent process gone (stdin closed), shutting down");
        long haltAfter = 15000;
        try {
            String v = System.getenv("LOCALINFRA_HALT_AFTER_MS");
            if (v != null) haltAfter = Long.parseLong(v);
        } catch (NumberFormatException ignored) {
        }
        final long delay = haltAfter;
        Thread halter = new Thread(() -> {
            try {
                Thread.sleep(delay);
            } catch (InterruptedException ignored) {
            }
            Runtime.getRuntime().halt(1);
        }, "localinfra-halt");
        halter.setDaemon(true);
        halter.start();
        System.exit(0);
    }
}
