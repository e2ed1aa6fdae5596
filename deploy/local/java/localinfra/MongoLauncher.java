package localinfra;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.MongoVersion;
import de.bwaldvogel.mongo.backend.AbstractMongoBackend;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.bson.Document;
import io.netty.channel.Channel;
import org.h2.mvstore.MVStore;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * mongo-java-server launcher, bound to 127.0.0.1 only: the memory backend for ":memory:" (tests and
 * benchmarks; documents stay Java objects, several times cheaper per operation than H2's
 * serialised in-memory MVStore), the H2 backend for a data file (npm start keeps its data).
 *
 * The data file's page cache is CACHE_MB (system property localinfra.mongo.cacheMb) instead of
 * H2's 16 MB: with 16 MB, a soak's collections outgrew the cache within minutes and every index
 * look-up read and deserialised pages from the file again, so the stand-in's CPU grew with the
 * data it held.
 *
 * Compaction rewrites the file's chunks whose live share (fill rate) is under a target
 * (COMPACT_FILL_RATE, system property localinfra.mongo.compactFillRate; MVStore's
 * RandomAccessStore.doHousekeeping). The background writer runs it about three times a second,
 * and a pass counts as "idle" when fewer than 10 pages were read or written since the last one,
 * which under load is most passes (commits come once a second, reads hit the page cache): an idle
 * pass rewrites up to 19 MB of the chunks while they are under the target full. A store whose
 * documents keep changing (deliveries, windows, due entries) keeps its chunks about 70% full, so
 * at H2's 90 or at 80 it rewrote chunks without pause and the stand-in's CPU grew with its file
 * (figures in docs/local-infrastructure.md). At 50 chunks are rewritten once half of them is
 * garbage: each byte reclaimed copies at most one live byte (four at 80), and the file holds at
 * most about twice the live data. A busy pass (more I/O) then rewrites nothing (its target is the
 * square, 25%, against 50% plus half the fill rate), and a file under 50% used has its chunks
 * moved to close the gaps. 0 turns compaction off.
 *
 * With the system property localinfra.mongo.profileSec set, each command's CPU and wall time are
 * summed by its shape, and the costliest shapes, the CPU of each group of threads and the store's
 * own figures are printed at that interval (CommandProfile).
 *
 * Usage: localinfra.MongoLauncher <port> <dataFile | :memory:> [serverVersion] [oplog]
 *   port           TCP port (0 = any free port; the chosen one is printed)
 *   dataFile       H2 MVStore file for on-disk data, or ":memory:" for the memory backend
 *   serverVersion  MongoDB version to report in hello/buildInfo, default 4.4 (maxWireVersion 9).
 *                  mongo-java-server's own ServerVersion enum tops out at MONGO_5_0 with wire
 *                  version 8, which the MongoDB Node driver 7.x (mongoose 9) rejects: it needs >= 9.
 *                  The reported version changes nothing else in mongo-java-server.
 *   oplog          "oplog" to enable the oplog (needed for change streams), default off
 *
 * Prints "LOCALINFRA_MONGO_READY port=<port>" on stdout once listening.
 */
public final class MongoLauncher {
    private static final int CACHE_MB = Integer.getInteger("localinfra.mongo.cacheMb", 256);
    private static final int COMPACT_FILL_RATE = Integer.getInteger("localinfra.mongo.compactFillRate", 50);

    private MongoLauncher() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: localinfra.MongoLauncher <port> <dataFile|:memory:> [4.4] [oplog]");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        String data = args[1];
        ReportedVersion version = ReportedVersion.parse(args.length > 2 ? args[2] : "4.4");
        boolean oplog = args.length > 3 && "oplog".equals(args[3]);

        final CommandProfile profile = CommandProfile.fromSystemProperty();
        final AbstractMongoBackend backend;
        if (":memory:".equals(data)) {
            backend = profile == null ? new MemoryBackend() : new MemoryBackend() {
                @Override
                public Document handleCommand(Channel channel, String db, String command, Document query) {
                    return profile.time(db, command, query, () -> super.handleCommand(channel, db, command, query));
                }
            };
        } else {
            File f = new File(data).getAbsoluteFile();
            File dir = f.getParentFile();
            if (dir != null && !dir.isDirectory() && !dir.mkdirs()) {
                throw new IllegalStateException("cannot create " + dir);
            }
            MVStore store = new MVStore.Builder()
                    .fileName(f.getPath())
                    .cacheSize(CACHE_MB)
                    .autoCompactFillRate(COMPACT_FILL_RATE)
                    .open();
            if (profile != null) profile.describeStore(() -> storeState(store));
            backend = profile == null ? new H2Backend(store) : new H2Backend(store) {
                @Override
                public Document handleCommand(Channel channel, String db, String command, Document query) {
                    return profile.time(db, command, query, () -> super.handleCommand(channel, db, command, query));
                }
            };
        }
        backend.version(version);
        if (oplog) backend.enableOplog();

        final MongoServer server = new MongoServer(backend);
        server.bind("127.0.0.1", port);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.shutdownNow();
            } catch (Throwable ignored) {
            }
            try {
                backend.close(); // commits and closes the H2 MVStore file, if any
            } catch (Throwable ignored) {
            }
        }, "localinfra-mongo-shutdown"));
        System.out.println("LOCALINFRA_MONGO_READY port=" + server.getLocalAddress().getPort()
                + " version=" + version + " wire=" + version.getWireVersion()
                + " store=" + (backend instanceof MemoryBackend ? "memory" : data));
        System.out.flush();
        // Netty's non-daemon event loop threads keep the JVM alive.
    }

    /** The store's file, fill rates, page cache and I/O counts (MVStore's own figures). */
    private static String storeState(MVStore store) {
        StringBuilder s = new StringBuilder();
        store.getFileStore().populateInfo((key, value) -> {
            if (key.startsWith("info.")) s.append(key.substring(5).toLowerCase()).append('=').append(value).append(' ');
        });
        return s.toString().trim();
    }

    /** A MongoDB version as reported to clients, with its wire protocol version. */
    static final class ReportedVersion implements MongoVersion {
        private static final Map<String, Integer> WIRE = Map.of(
                "3.6", 6, "4.0", 7, "4.2", 8, "4.4", 9, "5.0", 13, "6.0", 17, "7.0", 21, "8.0", 25);
        private final List<Integer> versionArray;
        private final int wireVersion;

        private ReportedVersion(List<Integer> versionArray, int wireVersion) {
            this.versionArray = versionArray;
            this.wireVersion = wireVersion;
        }

        static ReportedVersion parse(String s) {
            String[] parts = s.split("\\.");
            String key = parts[0] + "." + (parts.length > 1 ? parts[1] : "0");
            Integer wire = WIRE.get(key);
            if (wire == null) throw new IllegalArgumentException("unsupported server version " + s + ", use one of " + WIRE.keySet());
            List<Integer> arr = new ArrayList<>();
            for (int i = 0; i < 3; i++) arr.add(i < parts.length ? Integer.parseInt(parts[i]) : 0);
            return new ReportedVersion(List.copyOf(arr), wire);
        }

        @Override
        public List<Integer> getVersionArray() {
            return versionArray;
        }

        @Override
        public int getWireVersion() {
            return wireVersion;
        }

        @Override
        public String toString() {
            return toVersionString();
        }
    }
}
