package localinfra;

import java.io.File;
import java.io.FileInputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.util.Properties;

/**
 * Single-node KRaft Kafka launcher.
 *
 * Usage: localinfra.KafkaLauncher <server.properties> <clusterId>
 *
 * Formats the log dir with kafka.tools.StorageTool (in-process, so no extra JVM start) when it has
 * no meta.properties yet, then runs kafka.Kafka with the given properties file.
 * Kafka classes are reached by reflection so this file compiles without the Kafka jars.
 */
public final class KafkaLauncher {
    private KafkaLauncher() {}

    public static void main(String[] args) throws Throwable {
        if (args.length != 2) {
            System.err.println("usage: localinfra.KafkaLauncher <server.properties> <clusterId>");
            System.exit(2);
        }
        String propsFile = args[0];
        String clusterId = args[1];
        Properties props = new Properties();
        try (InputStream in = new FileInputStream(propsFile)) {
            props.load(in);
        }
        String logDirs = props.getProperty("log.dirs", props.getProperty("log.dir"));
        if (logDirs == null) throw new IllegalArgumentException("log.dirs missing in " + propsFile);
        File meta = new File(logDirs.split(",")[0].trim(), "meta.properties");
        if (!meta.exists()) {
            Class<?> storageTool = Class.forName("kafka.tools.StorageTool");
            Method execute = storageTool.getMethod("execute", String[].class, PrintStream.class);
            Object rc = execute.invoke(null,
                    (Object) new String[] {"format", "-t", clusterId, "-c", propsFile, "--ignore-formatted"},
                    System.out);
            if (!Integer.valueOf(0).equals(rc)) {
                System.err.println("[localinfra] kafka storage format failed with exit code " + rc);
                System.exit(1);
            }
            System.out.println("[localinfra] formatted " + meta.getParent() + " cluster.id=" + clusterId);
        }
        Class<?> kafka = Class.forName("kafka.Kafka");
        Method main = kafka.getMethod("main", String[].class);
        main.invoke(null, (Object) new String[] {propsFile});
    }
}
