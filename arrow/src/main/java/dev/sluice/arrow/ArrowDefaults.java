package dev.sluice.arrow;

import java.lang.reflect.Field;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Gives Arrow a default allocation manager where the application has none, before sluice-arrow's first use of an Arrow
 * allocator. Arrow looks its default up when its allocator classes initialize, even for an allocator configured with a
 * factory of its own ({@code BaseAllocator}'s default configuration is built then), and without
 * {@code arrow-memory-unsafe} or {@code arrow-memory-netty} that fails with "No DefaultAllocationManager found on
 * classpath", for good (the classes stay unusable). So where neither is on Arrow's class loader, and neither the
 * environment variable {@code ARROW_ALLOCATION_MANAGER_TYPE} nor the system property
 * {@code arrow.allocation.manager.type} names one, this sets Arrow's default to {@link ForeignAllocationManager}: then
 * {@link PinnedAllocationFactory}'s allocators, and {@code new RootAllocator()} too, work with {@code arrow-vector} and
 * {@code arrow-memory-core} alone.
 *
 * <p>It sets a private field of Arrow's {@code DefaultAllocationManagerOption}, which Arrow reads first: on the class
 * path that needs nothing; on the module path it needs {@code org.apache.arrow.memory} opened to sluice-arrow, else it
 * logs why at WARNING and Arrow fails as it would have.
 */
final class ArrowDefaults {

    private static final System.Logger LOG = System.getLogger(ArrowDefaults.class.getName());

    /** Where Arrow looks for its default allocation managers ({@code CheckAllocator}). */
    private static final String[] DEFAULT_MANAGERS = {
        "org/apache/arrow/memory/DefaultAllocationManagerFactory.class",
        "org/apache/arrow/memory/unsafe/DefaultAllocationManagerFactory.class",
        "org/apache/arrow/memory/netty/DefaultAllocationManagerFactory.class",
    };

    /** Whether this class set Arrow's default; decided once, when the class initializes. */
    private static final boolean INSTALLED = install();

    private ArrowDefaults() {
    }

    /** Makes sure the check ran: call before anything that initializes Arrow's allocators. */
    static boolean ensure() {
        return INSTALLED;
    }

    private static boolean install() {
        if (named(System.getenv("ARROW_ALLOCATION_MANAGER_TYPE"))
                || named(System.getProperty("arrow.allocation.manager.type"))) {
            return false; // the application chose one: Arrow's choice, and its error if that is missing
        }
        // BufferAllocator is an interface: loading it initializes none of Arrow's allocators.
        ClassLoader arrow = BufferAllocator.class.getClassLoader();
        for (String manager : DEFAULT_MANAGERS) {
            if (arrow == null ? ClassLoader.getSystemResource(manager) != null : arrow.getResource(manager) != null) {
                return false; // Arrow finds one of its own
            }
        }
        try {
            Class<?> option = Class.forName("org.apache.arrow.memory.DefaultAllocationManagerOption", true, arrow);
            Field factory = option.getDeclaredField("DEFAULT_ALLOCATION_MANAGER_FACTORY");
            factory.setAccessible(true);
            synchronized (option) {
                if (factory.get(null) != null) {
                    return false;
                }
                factory.set(null, ForeignAllocationManager.FACTORY);
            }
            return true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "sluice-arrow: Arrow has no default allocation manager (neither"
                    + " arrow-memory-unsafe nor arrow-memory-netty is on the class path) and sluice-arrow could not give it"
                    + " one (" + e + "): add one of them, or on the module path open org.apache.arrow.memory to"
                    + " dev.sluice.arrow (--add-opens org.apache.arrow.memory.core/org.apache.arrow.memory=dev.sluice.arrow)");
            return false;
        }
    }

    private static boolean named(String value) {
        return value != null && !value.isBlank();
    }
}
