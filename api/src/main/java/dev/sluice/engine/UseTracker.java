package dev.sluice.engine;

import dev.sluice.ClosedResourceException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Remembers, per stream, the last operation that used a piece of memory, so that freeing it waits for every use
 * (cudarc's habit: memory is never freed while the device may still touch it).
 *
 * <p>A use is (stream, sequence): the operation's {@link Operation} serves only as its record, for its sequence and
 * its marker; its public state (which a user may cancel) is never consulted. Whether the device has finished a use is
 * read from the stream's completed sequence ({@link StreamOrder#completed()}). Finished uses are dropped when a new
 * stream would not fit, so memory used by many short-lived streams over its life remembers only those with work still
 * pending. Cheap on the hot path: a short array scanned under the tracker's own monitor.
 *
 * <p><b>Automatic ordering.</b> Beside the last use per stream, the tracker keeps the <em>accesses</em> that order later
 * operations: per stream, byte range of the allocation and kind (read or write), the last operation that made it. An
 * operation on another stream that would race with one of them (a read after a write, a write after a read or a write)
 * is handed that access's future, for a device-side wait before it ({@link #claimOrdered}); reads after reads never
 * conflict. The accesses live in parallel arrays reused in place (an access replaces the same stream's earlier access
 * of the same range and kind, and a write the same stream's accesses inside its range), so a buffer used by one stream
 * costs one scanned entry per operation and no allocation; entries of finished operations are dropped when the arrays
 * are full. Another stream's unfinished access is never dropped, even when a later write covers it: the later write
 * may have been enqueued concurrently, without waiting for it.
 *
 * <p>The accesses are kept sorted by their first byte, with the longest range's length beside them, so an operation
 * scans only the entries that can overlap its range (those starting less than that length before it, up to its end):
 * thousands of chunks of one buffer enqueued ahead of the device cost a binary search and a few entries each, not a
 * scan of every chunk still pending.
 */
final class UseTracker {

    private static final System.Logger LOG = System.getLogger(UseTracker.class.getName());

    /**
     * A recording of repeated work ({@link Recording}) that holds a use of the memory it has not submitted yet. The
     * tracker keeps it without naming the recording, which names the stream's enqueue path.
     */
    interface Recorder {
        /**
         * Submits what it has recorded as plain enqueues, unless it records on {@code except}, which submits it in its
         * own order ({@link Recording#submitOnOtherStreams}).
         */
        void submitUnlessOn(StreamEnqueuer except);
    }

    /** The accesses, in parallel arrays: byte range [start, end), stream, operation, and whether it writes. */
    private long[] accessStart = new long[1];
    private long[] accessEnd = new long[1];
    private StreamOrder[] accessStream = new StreamOrder[1];
    private Operation<?>[] accessUse = new Operation<?>[1];
    private boolean[] accessWrites = new boolean[1];
    private int accesses;
    /** At least the length of every remembered access's range: how far before a range an overlapping one may start. */
    private long longestAccess;

    private StreamOrder[] streams = new StreamOrder[2];
    private Operation<?>[] lastUses = new Operation<?>[2];
    private int size;
    /** Enqueues between {@link #claim} and {@link #noteUse}: a free must wait for them to be noted. */
    private int claims;
    /**
     * The recordings of repeated work that have recorded an operation on this memory and not ended yet: the operation
     * counts as a use from the moment it is recorded, though it has no place in a stream's order until its body returns
     * and is noted ({@link #noteUse}) only then. What must wait for every use (a free, {@code whenIdle()}) waits for
     * them to end first ({@link #whenNoneRecorded}). Null while there are none, as nearly always.
     */
    private @Nullable List<Recorder> recordings;
    /** What waits for {@link #recordings} to end. */
    private @Nullable List<Runnable> afterRecordings;

    /**
     * Claims the memory for an enqueue about to use it, under the enqueuing stream's lock and before the backend is
     * called: refused if it was closed since the caller's check. A free waits until every claim is noted as a use
     * ({@link #noteUse}) or dropped ({@link #unclaim}), so an enqueue racing with {@code close()} either sees it closed or
     * is waited for.
     *
     * @param closed the memory's closed flag; null for memory a recording holds ({@link #recordedBy}), which stays
     *               allocated whatever its owner did
     * @throws ClosedResourceException naming {@code argument} if {@code closed} is set
     */
    synchronized void claim(@Nullable AtomicBoolean closed, String argument, PublicMemory what) {
        if (closed != null && closed.get()) {
            throw new ClosedResourceException(argument + " " + what);
        }
        claims++;
    }

    /** {@link #claim} on the hot path of launches: false, and no claim, if {@code closed} is set. */
    synchronized boolean claimIfOpen(@Nullable AtomicBoolean closed) {
        if (closed != null && closed.get()) {
            return false;
        }
        claims++;
        return true;
    }

    /**
     * {@link #claimIfOpen}, and, for an operation on {@code stream} that reads or writes bytes [start, end) of the
     * allocation, adds to {@code hazards} the last access of each other stream it would race with, unless the device has
     * finished it. Under the enqueuing stream's lock.
     */
    synchronized boolean claimOrdered(@Nullable AtomicBoolean closed, StreamOrder stream, long start,
            long end, boolean writes, Hazards hazards) {
        if (closed != null && closed.get()) {
            return false;
        }
        claims++;
        for (int i = firstOverlapCandidate(start); i < accesses && accessStart[i] < end; i++) {
            StreamOrder other = accessStream[i];
            if (other != stream && (writes || accessWrites[i]) && start < accessEnd[i]) {
                Operation<?> use = accessUse[i];
                if (!other.hasCompleted(use.seq())) {
                    hazards.add(other, use);
                }
            }
        }
        return true;
    }

    /**
     * {@link #noteUse}, and notes the operation as the last access of bytes [start, end) by {@code stream}, of the kind
     * given, for {@link #claimOrdered} of later operations.
     */
    synchronized void noteOrdered(StreamOrder stream, Operation<?> use, long start, long end, boolean writes) {
        if (--claims == 0) {
            notifyAll();
        }
        record(stream, use);
        noteAccess(stream, use, start, end, writes);
    }

    /** Notes an access that needs no claim (the allocation itself, a write by its stream). */
    synchronized void noteWrite(StreamOrder stream, Operation<?> use, long start, long end) {
        noteAccess(stream, use, start, end, true);
    }

    /**
     * Under the monitor. The usual case, a buffer one stream uses over and over the same way, is kept small enough for
     * the JIT to inline into the enqueue path (the general case is too big to be): the one access remembered is this
     * stream's, of the same bytes and kind, and this operation takes its place (what {@link #noteAnyAccess} would do).
     */
    private void noteAccess(StreamOrder stream, Operation<?> use, long start, long end, boolean writes) {
        if (accesses == 1 && accessStream[0] == stream && accessStart[0] == start && accessEnd[0] == end
                && accessWrites[0] == writes) {
            accessUse[0] = use;
            return;
        }
        noteAnyAccess(stream, use, start, end, writes);
    }

    /**
     * {@link #noteAccess} in general: drops the same stream's accesses this one stands for, then inserts it in start
     * order, first dropping finished accesses or growing the arrays if they are full. Under the monitor.
     */
    private void noteAnyAccess(StreamOrder stream, Operation<?> use, long start, long end, boolean writes) {
        // Only entries starting in [start - longestAccess, end) can overlap the range, and those this access stands for
        // lie inside it: the window is all that is scanned, and the entries after it move down over what was dropped.
        int from = firstOverlapCandidate(start);
        int kept = from;
        int i = from;
        for (; i < accesses && accessStart[i] < end; i++) {
            // This stream runs its operations in order: a later access of its own stands for an earlier one that
            // every later conflicting operation would also conflict with (the same range and kind; or anything
            // inside a write's range, since a write conflicts with everything).
            if (accessStream[i] == stream && (accessStart[i] == start && accessEnd[i] == end && accessWrites[i] == writes
                    || writes && start <= accessStart[i] && accessEnd[i] <= end)) {
                continue;
            }
            if (kept != i) {
                move(i, kept);
            }
            kept++;
        }
        if (kept != i) {
            int tail = accesses - i;
            shift(i, kept, tail);
            clear(kept + tail, accesses);
            accesses = kept + tail;
        }
        if (accesses == accessStream.length) {
            dropFinishedAccesses();
            if (accesses == accessStream.length) {
                int n = accesses * 2;
                accessStart = Arrays.copyOf(accessStart, n);
                accessEnd = Arrays.copyOf(accessEnd, n);
                accessStream = Arrays.copyOf(accessStream, n);
                accessUse = Arrays.copyOf(accessUse, n);
                accessWrites = Arrays.copyOf(accessWrites, n);
            }
        }
        int at = firstStartingAfter(start); // usually the end: buffers are mostly used in order of their offsets
        shift(at, at + 1, accesses - at);
        accesses++;
        accessStart[at] = start;
        accessEnd[at] = end;
        accessStream[at] = stream;
        accessUse[at] = use;
        accessWrites[at] = writes;
        longestAccess = Math.max(longestAccess, end - start);
    }

    /** The first access that may overlap a range starting at {@code start}. Under the monitor. */
    private int firstOverlapCandidate(long start) {
        return firstStartingAfter(start - longestAccess); // one starting at or before that ends at or before start
    }

    /** The first access whose range starts after {@code offset} ({@link #accesses} if none): binary search. */
    private int firstStartingAfter(long offset) {
        int lo = 0;
        int hi = accesses;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (accessStart[mid] <= offset) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private void move(int from, int to) {
        accessStart[to] = accessStart[from];
        accessEnd[to] = accessEnd[from];
        accessStream[to] = accessStream[from];
        accessUse[to] = accessUse[from];
        accessWrites[to] = accessWrites[from];
    }

    /** Moves {@code count} entries from {@code from} to {@code to} (either way; they may overlap). */
    private void shift(int from, int to, int count) {
        if (count > 0 && from != to) {
            System.arraycopy(accessStart, from, accessStart, to, count);
            System.arraycopy(accessEnd, from, accessEnd, to, count);
            System.arraycopy(accessStream, from, accessStream, to, count);
            System.arraycopy(accessUse, from, accessUse, to, count);
            System.arraycopy(accessWrites, from, accessWrites, to, count);
        }
    }

    /** Lets go of the entries in [from, to). */
    private void clear(int from, int to) {
        for (int i = from; i < to; i++) {
            accessStream[i] = null;
            accessUse[i] = null;
        }
    }

    /** Removes the accesses the device has finished, keeping the order; under the monitor. */
    private void dropFinishedAccesses() {
        int kept = 0;
        long longest = 0;
        for (int i = 0; i < accesses; i++) {
            if (!accessStream[i].hasCompleted(accessUse[i].seq())) {
                if (kept != i) {
                    move(i, kept);
                }
                longest = Math.max(longest, accessEnd[kept] - accessStart[kept]);
                kept++;
            }
        }
        clear(kept, accesses);
        accesses = kept;
        longestAccess = longest;
    }

    /** How many accesses this tracker remembers (for tests of its bound). */
    synchronized int rememberedAccesses() {
        return accesses;
    }

    /**
     * The operations one enqueue must wait for before it runs, collected by {@link #claimOrdered} over its buffers: per
     * other stream only the latest (waiting for it waits for that stream's earlier work too). One per stream, reused by
     * every enqueue under the stream's lock, so an enqueue without hazards allocates nothing.
     */
    static final class Hazards {
        private StreamOrder[] streams = new StreamOrder[2];
        private Operation<?>[] uses = new Operation<?>[2];
        private int size;

        void add(StreamOrder stream, Operation<?> use) {
            for (int i = 0; i < size; i++) {
                if (streams[i] == stream) {
                    if (use.seq() > uses[i].seq()) {
                        uses[i] = use;
                    }
                    return;
                }
            }
            if (size == streams.length) {
                streams = Arrays.copyOf(streams, size * 2);
                uses = Arrays.copyOf(uses, size * 2);
            }
            streams[size] = stream;
            uses[size++] = use;
        }

        int size() {
            return size;
        }

        Operation<?> get(int i) {
            return uses[i];
        }

        void clear() {
            for (int i = 0; i < size; i++) {
                streams[i] = null;
                uses[i] = null;
            }
            size = 0;
        }

        /** Moves the entries from {@code from} on into a new list, which it returns, and clears this one. */
        Hazards detach(int from) {
            Hazards d = new Hazards();
            for (int i = from; i < size; i++) {
                d.add(streams[i], uses[i]);
            }
            clear();
            return d;
        }
    }

    /**
     * The trackers that the enqueue in progress on a stream has claimed, so that a failure before its marker gives every
     * claim back in one place ({@link #unclaimAll}). Under the enqueuing stream's lock; one per stream, reused.
     */
    static final class Claims {
        private UseTracker[] trackers = new UseTracker[4];
        private int size;

        /** Notes a claim just made on {@code tracker}. */
        void add(UseTracker tracker) {
            if (size == trackers.length) {
                trackers = Arrays.copyOf(trackers, size * 2);
            }
            trackers[size++] = tracker;
        }

        /** The enqueue reached its marker: its uses are noted next, each ending its claim. */
        void clear() {
            for (int i = 0; i < size; i++) {
                trackers[i] = null;
            }
            size = 0;
        }

        /**
         * Takes the claims out, for an enqueue that lets its stream's lock go (another enqueue may run meanwhile and use
         * this list); {@link #attach} puts them back once it holds the lock again.
         */
        Claims detach() {
            Claims d = new Claims();
            d.trackers = trackers;
            d.size = size;
            trackers = new UseTracker[4];
            size = 0;
            return d;
        }

        /** Puts back the claims {@link #detach} took out (to this list's, empty unless an enqueue misbehaved). */
        void attach(Claims detached) {
            for (int i = 0; i < detached.size; i++) {
                add(detached.trackers[i]);
            }
        }

        /** The enqueue failed before its marker: gives back every claim it made. */
        void unclaimAll() {
            for (int i = 0; i < size; i++) {
                trackers[i].unclaim();
            }
            clear();
        }
    }

    /** Drops a claim whose enqueue failed before it was noted. */
    synchronized void unclaim() {
        if (--claims == 0) {
            notifyAll();
        }
    }

    /** Notes {@code use} as the last use by {@code stream}, ending the claim made for it. */
    synchronized void noteUse(StreamOrder stream, Operation<?> use) {
        if (--claims == 0) {
            notifyAll();
        }
        record(stream, use);
    }

    /** Under the monitor. */
    private void record(StreamOrder stream, Operation<?> use) {
        for (int i = 0; i < size; i++) {
            if (streams[i] == stream) {
                lastUses[i] = use;
                return;
            }
        }
        if (size == streams.length) {
            dropFinished();
            if (size == streams.length) {
                streams = Arrays.copyOf(streams, size * 2);
                lastUses = Arrays.copyOf(lastUses, size * 2);
            }
        }
        streams[size] = stream;
        lastUses[size++] = use;
    }

    /** Removes the uses the device has finished; under the monitor. */
    private void dropFinished() {
        int kept = 0;
        for (int i = 0; i < size; i++) {
            if (!streams[i].hasCompleted(lastUses[i].seq())) {
                streams[kept] = streams[i];
                lastUses[kept++] = lastUses[i];
            }
        }
        Arrays.fill(streams, kept, size, null);
        Arrays.fill(lastUses, kept, size, null);
        size = kept;
    }

    /** How many streams this tracker remembers (for tests of its bound). */
    synchronized int remembered() {
        return size;
    }

    /**
     * Notes that {@code r} has recorded an operation on this memory: until {@link #recordingEnded}, what waits for every
     * use waits for it too. Under the recording stream's lock; once per recording.
     */
    synchronized void recordedBy(Recorder r) {
        if (recordings == null) {
            recordings = new ArrayList<>(2);
        }
        recordings.add(r);
    }

    /**
     * {@code r} has ended: what it recorded has been submitted (its uses noted) or dropped. Runs what waited for the last
     * recording to end, on the calling thread, outside every lock.
     */
    void recordingEnded(Recorder r) {
        List<Runnable> ready = null;
        synchronized (this) {
            if (recordings == null || !recordings.remove(r)) {
                return;
            }
            if (recordings.isEmpty()) {
                recordings = null;
                ready = afterRecordings;
                afterRecordings = null;
            }
        }
        if (ready != null) {
            for (Runnable action : ready) {
                try {
                    action.run();
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "an action waiting for recorded work failed", e);
                }
            }
        }
    }

    /**
     * Runs {@code action} once no recording of repeated work holds a use of this memory it has not submitted yet: at once
     * on the caller if none does, else on the thread that ends the last of them, after its uses are noted.
     */
    void whenNoneRecorded(Runnable action) {
        synchronized (this) {
            if (recordings != null) {
                if (afterRecordings == null) {
                    afterRecordings = new ArrayList<>(1);
                }
                afterRecordings.add(action);
                return;
            }
        }
        action.run();
    }

    /** The recordings that hold a use of this memory not submitted yet (see {@link #recordedBy}); usually none. */
    synchronized List<Recorder> recordings() {
        return recordings == null ? List.of() : List.copyOf(recordings);
    }

    /**
     * The last uses the device has not finished, by any stream other than {@code except} (which orders itself); first
     * waits for enqueues that claimed the memory to note their use (a few microseconds: they hold a stream's lock).
     */
    synchronized List<Operation<?>> pendingUses(@Nullable StreamOrder except) {
        boolean interrupted = false;
        while (claims > 0) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        List<Operation<?>> out = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            if (streams[i] != except && !streams[i].hasCompleted(lastUses[i].seq())) {
                out.add(lastUses[i]);
            }
        }
        return out;
    }

    /**
     * Runs {@code action} once every use made so far has finished on the device or been dropped (see
     * {@link #whenFinishedOrDropped}), operations that repeated work has recorded included (see
     * {@link #whenNoneRecorded}): at once on the caller if none is pending.
     */
    void whenAllFinished(Runnable action) {
        whenNoneRecorded(() -> whenFinishedOrDropped(pendingUses(null), action));
    }

    /**
     * Runs {@code action} once, when each of {@code uses} has finished on the device (its stream's completed sequence,
     * on that context's completion thread) or been dropped: after its context's close nothing of it runs any more (on
     * the closing thread). At once on the caller if {@code uses} is empty. Whichever comes first counts for a use; its
     * watch of the other is then let go, since that context may live long.
     */
    static void whenFinishedOrDropped(List<Operation<?>> uses, Runnable action) {
        if (uses.isEmpty()) {
            action.run();
            return;
        }
        AtomicInteger left = new AtomicInteger(uses.size());
        for (Operation<?> use : uses) {
            AtomicBoolean counted = new AtomicBoolean();
            AtomicReference<Runnable> unwatch = new AtomicReference<>();
            Runnable finished = () -> {
                if (counted.compareAndSet(false, true)) {
                    Runnable u = unwatch.getAndSet(null);
                    if (u != null) {
                        u.run();
                    }
                    if (left.decrementAndGet() == 0) {
                        action.run();
                    }
                }
            };
            StreamOrder s = use.core(); // a use always has a stream
            unwatch.set(s.context().handshake().afterClosed(finished));
            if (counted.get()) {
                unwatch.set(null); // that context had closed already
            }
            s.afterCompleted(use.seq(), finished);
            use.seal(); // its group must get a marker to complete; not under any lock here
        }
    }
}
