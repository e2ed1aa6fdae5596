package localinfra;

import de.bwaldvogel.mongo.bson.Document;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * Where the stand-in's time goes, by the shape of each command: its database, collection, command
 * and the keys of its filter with their operators (`find agent_memory.sessions {_id, agent_id,
 * tenant_id}`), never a value. Each command's CPU time on the worker thread that runs it and its
 * wall time (which adds the waits for a collection's lock) are summed per shape; every interval the
 * shapes that took the most CPU are printed to stdout (the stand-in's log) and the sums start over,
 * followed by the process's CPU, the collector's pauses, the CPU of each group of threads (the wire
 * workers, H2's serialization and background writer) and the store's own figures (file size, fill
 * rates, pages read and written, page cache).
 *
 * A thread dump names the code a busy worker runs, not the query; the services' command counters
 * name the query, not its cost. This names both, so a query whose cost grows with the data shows
 * as its CPU per call rising from one interval to the next, and CPU spent outside the commands
 * (compaction, the collector) shows as the process's figure drawing away from theirs.
 *
 * On when the system property localinfra.mongo.profileSec is set (seconds per interval).
 */
final class CommandProfile {
    private static final int TOP = 30;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final Map<String, Sums> shapes = new ConcurrentHashMap<>();
    /** Each live thread's CPU time at the last print, by thread id. */
    private final Map<Long, Long> threadCpu = new HashMap<>();
    /** The process's CPU time and the collectors' time at the last print. */
    private long processCpu;
    private long gcMillis;
    /** A line on the store's state (its file, fill rate, page cache), or null. */
    private volatile Supplier<String> storeState;

    private static final class Sums {
        final LongAdder calls = new LongAdder();
        final LongAdder cpuNanos = new LongAdder();
        final LongAdder wallNanos = new LongAdder();
    }

    private CommandProfile() {}

    /** A profile printing every `localinfra.mongo.profileSec` seconds, or null when that is unset. */
    static CommandProfile fromSystemProperty() {
        Integer seconds = Integer.getInteger("localinfra.mongo.profileSec");
        if (seconds == null || seconds <= 0) return null;
        CommandProfile profile = new CommandProfile();
        Thread printer = new Thread(() -> {
            for (;;) {
                try {
                    Thread.sleep(seconds * 1000L);
                } catch (InterruptedException e) {
                    return;
                }
                profile.printAndReset(seconds);
            }
        }, "localinfra-mongo-profile");
        printer.setDaemon(true);
        printer.start();
        return profile;
    }

    /** Adds `state` (the store's file, fill rate and page cache) to each print. */
    void describeStore(Supplier<String> state) {
        this.storeState = state;
    }

    /** Runs one command, adding its times to its shape's. */
    Document time(String database, String command, Document query, Supplier<Document> run) {
        long cpu = THREADS.getCurrentThreadCpuTime();
        long wall = System.nanoTime();
        try {
            return run.get();
        } finally {
            Sums sums = shapes.computeIfAbsent(shape(database, command, query), k -> new Sums());
            sums.calls.increment();
            sums.cpuNanos.add(THREADS.getCurrentThreadCpuTime() - cpu);
            sums.wallNanos.add(System.nanoTime() - wall);
        }
    }

    private void printAndReset(int seconds) {
        List<Map.Entry<String, long[]>> rows = new ArrayList<>();
        for (String key : shapes.keySet()) {
            Sums sums = shapes.remove(key);
            if (sums == null) continue;
            rows.add(Map.entry(key, new long[] {sums.calls.sum(), sums.cpuNanos.sum(), sums.wallNanos.sum()}));
        }
        rows.sort((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]));
        long totalCpu = rows.stream().mapToLong(r -> r.getValue()[1]).sum();
        StringBuilder out = new StringBuilder();
        out.append(String.format("[profile] %s: commands took %.1f%% of a core over %d s (calls, cpu %% of a core, cpu us/call, wall us/call)%n",
                java.time.Instant.now(), totalCpu / 1e7 / seconds, seconds));
        for (Map.Entry<String, long[]> row : rows.subList(0, Math.min(TOP, rows.size()))) {
            long[] v = row.getValue();
            out.append(String.format("[profile] %8d %6.2f%% %9.0f %9.0f  %s%n",
                    v[0], v[1] / 1e7 / seconds, v[1] / 1e3 / v[0], v[2] / 1e3 / v[0], row.getKey()));
        }
        long cpu = processCpuNanos();
        long gc = ManagementFactory.getGarbageCollectorMXBeans().stream()
                .mapToLong(GarbageCollectorMXBean::getCollectionTime).sum();
        out.append(String.format("[profile] process %.1f%% of a core, collector pauses %d ms; threads (cpu %% of a core): %s%n",
                (cpu - processCpu) / 1e7 / seconds, gc - gcMillis, threadGroups(seconds)));
        processCpu = cpu;
        gcMillis = gc;
        Supplier<String> state = storeState;
        if (state != null) out.append("[profile] store: ").append(state.get()).append('\n');
        System.out.print(out);
        System.out.flush();
    }

    private static long processCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean
                ? ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime()
                : 0;
    }

    /**
     * Every thread's CPU time since the last print, summed by its name without digits (the wire
     * workers, H2's serialization and background writer), largest first. The collector's and the
     * compiler's threads are not Java threads and are not among them: the collector's pauses are
     * printed apart, and the process's CPU counts them all.
     */
    private String threadGroups(int seconds) {
        Map<String, Long> groups = new TreeMap<>();
        Map<Long, Long> now = new HashMap<>();
        for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (info == null) continue;
            long cpu = THREADS.getThreadCpuTime(info.getThreadId());
            if (cpu < 0) continue;
            now.put(info.getThreadId(), cpu);
            long delta = cpu - threadCpu.getOrDefault(info.getThreadId(), 0L);
            groups.merge(info.getThreadName().replaceAll("[0-9]+", "#"), delta, Long::sum);
        }
        threadCpu.clear();
        threadCpu.putAll(now);
        List<String> parts = new ArrayList<>();
        groups.entrySet().stream()
                .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
                .filter(e -> e.getValue() >= seconds * 1e6) // from 0.1% of a core
                .forEach(e -> parts.add(String.format("%s %.1f%%", e.getKey(), e.getValue() / 1e7 / seconds)));
        return String.join(", ", parts);
    }

    /** `command db.collection {filter keys}`, with a sort's keys when the command has one. */
    static String shape(String database, String command, Document query) {
        Object target = query.get(command);
        String collection = target instanceof String ? (String) target : "";
        Document filter = null;
        Document sort = null;
        switch (command.toLowerCase()) {
            case "find":
                filter = asDocument(query.get("filter"));
                sort = asDocument(query.get("sort"));
                break;
            case "update":
                filter = firstStatement(query.get("updates"), "q");
                break;
            case "delete":
                filter = firstStatement(query.get("deletes"), "q");
                break;
            case "findandmodify":
                filter = asDocument(query.get("query"));
                sort = asDocument(query.get("sort"));
                break;
            case "count":
            case "distinct":
                filter = asDocument(query.get("query"));
                break;
            case "aggregate":
                Object pipeline = query.get("pipeline");
                if (pipeline instanceof List && !((List<?>) pipeline).isEmpty()) {
                    Document first = asDocument(((List<?>) pipeline).get(0));
                    if (first != null) filter = asDocument(first.get("$match"));
                }
                break;
            case "getmore":
                collection = String.valueOf(query.get("collection"));
                break;
            default:
                break;
        }
        StringBuilder s = new StringBuilder(command).append(' ').append(database).append('.').append(collection);
        if (filter != null) s.append(' ').append(keys(filter));
        if (sort != null && !sort.isEmpty()) s.append(" sort ").append(sort.keySet());
        return s.toString();
    }

    private static Document firstStatement(Object statements, String field) {
        if (!(statements instanceof List) || ((List<?>) statements).isEmpty()) return null;
        Document first = asDocument(((List<?>) statements).get(0));
        return first == null ? null : asDocument(first.get(field));
    }

    private static Document asDocument(Object value) {
        return value instanceof Document ? (Document) value : null;
    }

    /** `{a, b:$lte, $or:[...]}`: each key, with the operators of a value that is an operator document. */
    private static String keys(Document filter) {
        List<String> parts = new ArrayList<>();
        for (Map.Entry<String, Object> entry : filter.entrySet()) {
            String key = entry.getKey();
            Object value = entry.getValue();
            if (value instanceof Document && !((Document) value).isEmpty()
                    && ((Document) value).keySet().iterator().next().startsWith("$")) {
                key += ":" + String.join(":", ((Document) value).keySet());
            } else if (value instanceof List && key.startsWith("$")) {
                key += "[" + ((List<?>) value).size() + "]";
            }
            parts.add(key);
        }
        parts.sort(null);
        return "{" + String.join(", ", parts) + "}";
    }
}
