package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Frames;

/**
 * What a hot application method spends its CPU on, read from the frames below it: the call it
 * makes (the first frame below the deepest application frame), and the kinds of computation
 * whose cure is known whatever the application (a backtracking regular expression, a secure
 * random generator, password hashing, hash collisions, compression, security-provider lookups, public-key cryptography,
 * starting threads, copy-on-write collections, string concatenation in a loop, interning, file-system calls,
 * forcing writes to disk, unbuffered reads a byte at a time, busy-waiting, compiling stylesheets
 * and schemas, sorting per call, indexing a LinkedList). Keyed to JDK and library APIs only.
 */
final class HotCallee {

    /** A kind of computation with a cure of its own. */
    enum Kind {
        REGEX("java.util.regex (regular-expression matching)",
                "Regular expressions run on every request. If the pattern nests or chains unbounded quantifiers"
                + " (\".*(.*=.*)\", \"(a+)+\"), it backtracks on input that does not match, trying every way to split"
                + " it, polynomially or exponentially in its length: make it linear (possessive quantifiers or atomic"
                + " groups, one quantifier per span, anchors) and bound the length of the input it runs on. Compile each"
                + " pattern once into a static final Pattern (String.matches, replaceAll, replaceFirst and split compile"
                + " theirs on every call), and for a fixed string use String.replace or indexOf instead.",
                "java.util.regex."),
        RANDOM("SecureRandom (UUID.randomUUID and secure random numbers)",
                "UUID.randomUUID() and new SecureRandom() draw from one secure generator shared by every thread"
                + " (NativePRNG mixes each read through SHA-1, under a lock). Ids that need not be unguessable can come"
                + " from a cheaper source (ThreadLocalRandom, a counter, a time-based id); where they must be, draw one"
                + " per request rather than per item, or keep one SecureRandom per thread.",
                "java.util.UUID.randomUUID", "java.security.SecureRandom.", "sun.security.provider."),
        PASSWORD_HASH("password hashing or key derivation (slow on purpose)",
                "Password hashing and key derivation are slow on purpose (each step of BCrypt's work factor doubles it,"
                + " PBKDF2 runs its HMAC as many times as its iteration count): verify a password once per login and issue"
                + " a session or token instead of hashing on every request, keep the work factor at what policy asks, and"
                + " rate-limit the endpoints that hash. A key derived from a fixed secret (PBKDF2 through"
                + " SecretKeyFactory.generateSecret for a signing or encryption key) is the same key every time: derive it"
                + " once, at start-up or on first use, and keep the SecretKey (a new Mac or Cipher per call is cheap).",
                "org.springframework.security.crypto.", "org.mindrot.jbcrypt.", "at.favre.lib.crypto.bcrypt.",
                "de.mkammerer.argon2.", "com.sun.crypto.provider.PBKDF2", "javax.crypto.SecretKeyFactory."),
        HASH_COLLISIONS("hash collisions (HashMap's tree bins)",
                "The map's keys collide: many of them share a hashCode, so HashMap keeps them in one bin as a tree,"
                + " and keys that are not Comparable are found by comparing them with equals one by one. Make hashCode"
                + " use the fields equals uses (Objects.hash over them, or a record's own), so equal-looking keys spread.",
                "java.util.HashMap$TreeNode.", "java.util.concurrent.ConcurrentHashMap$TreeBin.", "java.util.concurrent.ConcurrentHashMap$TreeNode."),
        COMPRESSION("compression (java.util.zip)",
                "Compressing on every request costs CPU in proportion to the bytes and the level: use a fast level"
                + " (Deflater.BEST_SPEED, or the server's own compression with a minimum size), compress what does not"
                + " change once and serve the cached bytes, or leave small responses uncompressed.",
                "java.util.zip."),
        /**
         * Cipher.getInstance and its kin, and the provider choice a Cipher makes at its first init: a
         * service outside the lab built a Cipher and a Mac per token, 200 per request, and 81 % of
         * that method's samples were the lookups, not the encryption.
         */
        JCA_LOOKUP("looking up a cipher, MAC, digest or signature in the security providers (getInstance per call)",
                "Cipher.getInstance, Mac.getInstance, MessageDigest.getInstance and Signature.getInstance search the"
                + " installed providers, check the JCE's permissions and build a new implementation by reflection on"
                + " every call, and a new Cipher chooses its provider again at its first init: far more than encrypting"
                + " or hashing a short message costs. Get each one once and reuse it: these objects are not"
                + " thread-safe, so keep one per thread (a ThreadLocal) or in a small pool; init a Cipher per message"
                + " with its IV, and init a Mac once per key (doFinal resets it for the next message).",
                "javax.crypto.Cipher.getInstance", "javax.crypto.Cipher.chooseProvider", "javax.crypto.Mac.getInstance",
                "javax.crypto.Mac.chooseProvider", "java.security.MessageDigest.getInstance", "java.security.Signature.getInstance",
                "java.security.Signature.chooseProvider", "javax.crypto.KeyAgreement.getInstance", "javax.crypto.KeyAgreement.chooseProvider",
                "javax.crypto.KeyGenerator.getInstance", "java.security.KeyFactory.getInstance", "sun.security.jca.",
                "java.security.Provider.getService", "java.security.Provider$Service.newInstance", "javax.crypto.JceSecurity.") {
            @Override
            Kind refines() {
                return CRYPTO;
            }
        },
        CRYPTO("cryptography (signatures, ciphers, key agreement)",
                "Public-key operations cost milliseconds each (signing with RSA most, and more with longer keys): sign"
                + " or verify once and cache the result for its lifetime (a token, a session), reuse TLS sessions and"
                + " connections, or choose a cheaper algorithm (ECDSA or EdDSA signs far faster than RSA-3072).",
                "java.security.Signature.", "javax.crypto.", "sun.security.rsa.", "sun.security.ec.", "sun.security.util.math.",
                "java.security.KeyPairGenerator.", "sun.security.ssl."),
        THREAD_START("starting threads (Thread.start)",
                "Each call starts a new OS thread (a stack mapped and touched, tens of microseconds of CPU): run the"
                + " work on a shared pool built once, or on JDK 21+ as a virtual thread; do it inline when the caller"
                + " waits for it anyway.",
                "java.lang.Thread.start"),
        COPY_ON_WRITE("copy-on-write collections (each write copies the whole array)",
                "A CopyOnWriteArrayList or CopyOnWriteArraySet copies its whole array on every add, set and remove, under"
                + " its lock: written per request it grows and every write costs its size. Keep copy-on-write for rarely"
                + " changed lists (listeners); for data written per request use ConcurrentLinkedQueue,"
                + " ConcurrentHashMap.newKeySet(), or a bounded ring buffer.",
                "java.util.concurrent.CopyOnWriteArrayList.add", "java.util.concurrent.CopyOnWriteArrayList.set",
                "java.util.concurrent.CopyOnWriteArrayList.remove", "java.util.concurrent.CopyOnWriteArraySet.add",
                "java.util.concurrent.CopyOnWriteArraySet.remove"),
        STRING_CONCAT("string concatenation (each + copies the whole string so far)",
                "A string grown with += (or String.concat) in a loop is copied whole at every step: the work is"
                + " quadratic in its final length. Build it with one StringBuilder (sized up front when the length is"
                + " known), String.join or Collectors.joining, or write the pieces straight to the response's stream.",
                "java.lang.StringConcatHelper.", "java.lang.String.concat"),
        INTERN("interning strings (String.intern, the JVM's string table)",
                "String.intern looks each string up in the JVM's own string table, a native hash table every thread"
                + " shares: interning values that rarely repeat (ids, per-request or random text) fills it, every lookup"
                + " walks longer chains, and each collection has to scan and clean it. Intern only a small, fixed set of"
                + " values; to share equal strings use a map the application owns and bounds (Guava's"
                + " Interners.newWeakInterner), or let G1 deduplicate them (-XX:+UseStringDeduplication). Jackson interns"
                + " field names by default: turn INTERN_FIELD_NAMES off when the names are unbounded.",
                "java.lang.String.intern"),
        SINGLE_BYTE_IO("reading or writing a file a few bytes at a time (a system call each)",
                "The code reads or writes the file through an unbuffered stream a few bytes at a time: each"
                + " FileInputStream.read() or RandomAccessFile.read() is a system call for a single byte, so a 256 KB file"
                + " costs 262,144 of them, and each DataOutputStream.writeInt() straight onto a file stream is a system"
                + " call for four. Wrap the stream in a BufferedInputStream or BufferedOutputStream (a BufferedReader or"
                + " BufferedWriter for text), read into a byte array, or read the whole file with Files.readAllBytes or"
                + " Files.newBufferedReader; if the file does not change, read it once and keep it.",
                "java.io.FileInputStream.read0", "java.io.RandomAccessFile.read0", "java.io.RandomAccessFile.write0") {
            @Override
            Kind refines() {
                return FILE_SYSTEM;
            }

            @Override
            boolean shapeBelow(String[] stack, int at) {
                return smallUnbufferedWrite(stack, at);
            }
        },
        /**
         * A blind Jersey service on Grizzly (session 46) flushed its CSV export's BufferedWriter after every
         * 70-byte row: 1,500 socket writes (and HTTP chunks) a response, 43 % of its CPU in write system calls,
         * and "no root cause found".
         */
        FLUSH_PER_WRITE("flushing its output after every small write (a system call, and on a streamed HTTP response a chunk, per flush)",
                "The code flushes its writer or stream after each piece it writes, so the buffer never fills: every"
                + " flush is a write system call with a few bytes, and on a streamed HTTP response also a chunk and, with"
                + " TCP_NODELAY, a packet the client must take apart. Write through the buffer and flush once at the end"
                + " (closing the stream flushes it), or every few kilobytes if the reader must see progress; let the"
                + " container's buffer do its work.") {
            @Override
            boolean shapeBelow(String[] stack, int at) {
                return flushedWrite(stack, at);
            }
        },
        FSYNC("forcing writes to disk (fsync)",
                "Each fsync waits for the disk to make the written bytes durable, a round trip to the device for"
                + " every call, and the writes of all threads queue for it. Flush once for many writes: group"
                + " commit (append, then let one flush cover every record appended since the last one, each caller"
                + " waiting for the flush that includes its record, not for a lock), flush on a timer where losing"
                + " the last moments of records on a crash is acceptable, or hand the records to one writer thread"
                + " that batches them.",
                "sun.nio.ch.FileChannelImpl.force", "sun.nio.ch.FileDispatcherImpl.force", "java.io.FileDescriptor.sync",
                "java.nio.MappedByteBuffer.force", "java.nio.MappedMemoryUtils.force"),
        FILE_SYSTEM("file-system calls (listing, stat-ing and opening files)",
                "The request walks or reads the file system on every call: each file listed, stat-ed or opened is a"
                + " system call, and a tree of thousands costs milliseconds of kernel CPU whatever the page cache holds."
                + " Read it once at start-up (again on change, with a WatchService or a periodic refresh off the request"
                + " path) and serve the result from memory.",
                "sun.nio.fs.", "java.nio.file.Files.", "java.nio.file.FileTreeWalker", "java.nio.file.FileTreeIterator",
                "java.io.File.", "java.io.UnixFileSystem.", "java.io.WinNTFileSystem.", "java.io.FileInputStream."),
        BUSY_WAIT("busy-waiting (a loop that polls with Thread.yield or Thread.onSpinWait)",
                "The thread waits for another one by polling in a loop: each turn yields and comes straight back,"
                + " so the waiting thread holds a core that the thread doing the work needs, and more waiters make"
                + " the work slower. Block instead: wait on the result (Future.get, CompletableFuture.join, a"
                + " CountDownLatch, BlockingQueue.take) or continue in a callback (thenApply, thenAccept).",
                "java.lang.Thread.yield", "java.lang.Thread.onSpinWait") {
            @Override
            String why() {
                return "The request waits for work done elsewhere, but on a core: a thread that polls stays runnable,"
                        + " so the scheduler keeps giving it the CPU the working thread needs. On a busy machine every"
                        + " poller makes the work it waits for slower, and the service's capacity falls as load rises.";
            }
        },
        XML_COMPILE("compiling an XSLT stylesheet or an XML schema",
                "The stylesheet is compiled on every call: TransformerFactory.newTransformer(source) parses the XSLT"
                + " and, in the JDK's XSLTC, generates and loads classes for it each time. Compile it once: keep"
                + " factory.newTemplates(source) in a field (a Templates is thread-safe) and call"
                + " templates.newTransformer() per request, which is cheap (a Transformer is not thread-safe, so not"
                + " shared). Likewise keep the Schema from SchemaFactory.newSchema and create a Validator per request.",
                "com.sun.org.apache.xalan.internal.xsltc.trax.TransformerFactoryImpl.newTransformer",
                "com.sun.org.apache.xalan.internal.xsltc.trax.TransformerFactoryImpl.newTemplates",
                "org.apache.xalan.processor.TransformerFactoryImpl.newTransformer",
                "org.apache.xalan.processor.TransformerFactoryImpl.newTemplates",
                "net.sf.saxon.jaxp.SaxonTransformerFactory.newTransformer", "net.sf.saxon.jaxp.SaxonTransformerFactory.newTemplates",
                "net.sf.saxon.TransformerFactoryImpl.newTransformer", "net.sf.saxon.TransformerFactoryImpl.newTemplates",
                "javax.xml.validation.SchemaFactory.newSchema",
                "com.sun.org.apache.xerces.internal.jaxp.validation.XMLSchemaFactory.newSchema"),
        /**
         * XPath evaluated per item: a claims service outside the lab looked each damaged item's
         * coverage up with {@code //Coverage[@CoverageId='…']} in a loop, 9.8x slower than a map by id.
         */
        XPATH("evaluating XPath (the expression compiled, and the document searched, on every call)",
                "XPath.evaluate(String, …) compiles the expression from its text on every call, and the JDK's engine (Xalan's)"
                + " builds a DTM view of the DOM and walks it: a // search visits the whole document each time, so a lookup per"
                + " item costs items × document. Compile each XPathExpression once (per thread: XPath objects are not"
                + " thread-safe), make the path specific instead of //, and for lookups by id index the nodes once (a map from"
                + " the id to its element, one pass over getElementsByTagName) and look them up there.",
                "com.sun.org.apache.xpath.internal.", "org.apache.xpath.", "javax.xml.xpath.", "net.sf.saxon.xpath.",
                "org.jaxen.", "com.sun.org.apache.xml.internal.dtm."),
        SORT("sorting",
                "The same data is sorted on every call: keep it sorted as it changes (a TreeMap, a heap, insertion"
                + " into place), sort once and cache the result, or compute the statistic incrementally (HdrHistogram"
                + " for percentiles) instead of sorting a copy each time.",
                "java.util.Arrays.sort", "java.util.Arrays.parallelSort", "java.util.Collections.sort", "java.util.List.sort",
                "java.util.ArrayList.sort", "java.util.TimSort.", "java.util.ComparableTimSort.", "java.util.DualPivotQuicksort.",
                "java.util.stream.SortedOps"),
        FORMATTER("building a date or number formatter from its pattern",
                "The code parses a format pattern into a formatter on every call (DateTimeFormatter.ofPattern, new"
                + " SimpleDateFormat, new DecimalFormat). Build it once: a DateTimeFormatter is immutable and thread-safe,"
                + " so keep it in a static final field; SimpleDateFormat and DecimalFormat are not thread-safe: replace"
                + " them with DateTimeFormatter, or keep one per thread.",
                "java.time.format.DateTimeFormatter.ofPattern", "java.time.format.DateTimeFormatterBuilder.appendPattern",
                "java.text.SimpleDateFormat.<init>", "java.text.DecimalFormat.<init>"),
        /** Found from the stack's shape ({@link HotCallee#listShift}): the JIT's frames name the list's methods unreliably. */
        LIST_SHIFT("shifting an ArrayList's elements (remove(0) and add(0, x) copy the rest of its array)",
                "An ArrayList used as a queue moves every remaining element on each remove(0) and add(0, x), so draining"
                + " n items copies n²/2 of them. Use an ArrayDeque (offer and poll) for a queue, take items from the end,"
                + " or iterate without removing; do not copy a large list per call.") {
            @Override
            boolean shapeBelow(String[] stack, int at) {
                return listShift(stack, at);
            }
        },
        /**
         * A service outside the lab made thumbnails with getScaledInstance(SCALE_SMOOTH): drawing the
         * result pushed every source pixel through AWT's filter one getRGB call at a time, under
         * OffScreenImageSource's lock, so the requests also queued for it (18 req/s against 93).
         */
        AWT_PRODUCER("scaling or filtering an image through AWT's image-producer pipeline (Image.getScaledInstance)",
                "Image.getScaledInstance and the ImageFilters run AWT's old producer/consumer pipeline: every source"
                + " pixel is pushed through the filter one call at a time (getRGB per pixel for a decoded JPEG), under"
                + " the image source's lock, so one thumbnail costs the whole source and requests take turns. Never use"
                + " it on a server: draw into a new BufferedImage of the target size with Graphics2D.drawImage and the"
                + " interpolation hint (bilinear, or bicubic), halving in steps for large reductions, or use a library"
                + " that does (Thumbnailator, imgscalr); keep the thumbnails once made.",
                "java.awt.Image.getScaledInstance", "java.awt.image.FilteredImageSource", "sun.awt.image.OffScreenImageSource",
                "java.awt.image.AreaAveragingScaleFilter", "java.awt.image.ReplicateScaleFilter", "sun.awt.image.ImageRepresentation",
                "sun.awt.image.ToolkitImage"),
        /** Matched by method, not prefix: LinkedList.getFirst and getLast cost nothing. */
        LINKED_LIST_INDEX("indexing a LinkedList (get(i) walks the list node by node from its nearer end)",
                "LinkedList.get(i) and set(i, x) walk the list from its nearer end to reach item i, so a loop that"
                + " indexes it costs the square of its length, and each step is a cache miss on a separate node. Use an"
                + " ArrayList (or a primitive array for numbers) where items are read by index, or walk the LinkedList"
                + " with its iterator (a for-each loop, a ListIterator for a window).") {
            @Override
            boolean matches(String frame) {
                String m = Frames.stripLine(frame);
                return m.equals("java.util.LinkedList.get") || m.equals("java.util.LinkedList.node") || m.equals("java.util.LinkedList.set");
            }
        },
        LINEAR_SEARCH("searching a list item by item (List.contains or indexOf inside a loop)",
                "Each List.contains or indexOf compares the value with every item until it finds it: called once per"
                + " item of a loop (de-duplicating, joining two lists, checking membership) the work grows with the square"
                + " of the list. Keep the items in a HashSet (a LinkedHashSet to keep their order) and ask it, or index"
                + " them once in a HashMap by key.",
                "java.util.ArrayList.contains", "java.util.ArrayList.indexOf", "java.util.ArrayList.lastIndexOf",
                "java.util.LinkedList.contains", "java.util.LinkedList.indexOf",
                "java.util.Vector.indexOf", "java.util.Vector.contains", "java.util.AbstractList.indexOf",
                "java.util.AbstractCollection.contains", "java.util.ArrayDeque.contains", "java.util.Arrays$ArrayList.indexOf",
                "java.util.Arrays$ArrayList.contains", "java.util.ImmutableCollections$ListN.indexOf",
                "java.util.ImmutableCollections$AbstractImmutableList.contains", "java.util.Collections.frequency"),
        BIG_NUMBERS("arbitrary-precision arithmetic (BigDecimal, BigInteger)",
                "BigDecimal and BigInteger cost in proportion to their digits (a multiply or divide, to the square of"
                + " them): a MathContext of hundreds or thousands of digits, or an unbounded scale carried through a loop,"
                + " makes each step far dearer than the result needs. Compute at the precision the result keeps"
                + " (MathContext.DECIMAL64 or DECIMAL128, or setScale with a RoundingMode after each step), raise to a power"
                + " with pow(n, mc) rather than by repeated multiplication at full precision, and for money in one currency"
                + " keep long cents, which are exact and far cheaper.",
                "java.math.BigDecimal.", "java.math.BigInteger.", "java.math.MutableBigInteger."),
        STRING_FORMAT("formatting text with String.format (its pattern parsed on every call)",
                "String.format parses its format string and boxes its arguments on every call, several times the cost"
                + " of concatenation. For a log line, pass the arguments to the logger's {} placeholders (SLF4J, log4j2)"
                + " instead: a String.format inside log.debug(...) runs even when DEBUG is off, and the placeholders are"
                + " formatted only when the level is on. Elsewhere build the text with a StringBuilder, or format numbers"
                + " with a DecimalFormat or DateTimeFormatter kept once.",
                "java.lang.String.format", "java.lang.String.formatted", "java.util.Formatter."),
        REFLECTION_LOOKUP("looking methods or fields up by name (Class.getMethod and its kin)",
                "Each Class.getMethod, getDeclaredField or getConstructor searches the class's members by name and"
                + " returns a fresh copy of what it finds; a mapper or copier that looks its accessors up per object"
                + " and per property pays that search every time. Look each Method, Field or Constructor up once and"
                + " keep it (a static final, or per class in a ClassValue or ConcurrentHashMap), or build a"
                + " MethodHandle once; better, use a mapper that generates plain code (MapStruct), or keep one"
                + " instance of a reflective one (ModelMapper, BeanUtils) so that it caches its introspection.",
                "java.lang.Class.getMethod", "java.lang.Class.getDeclaredMethod", "java.lang.Class.getField",
                "java.lang.Class.getDeclaredField", "java.lang.Class.getConstructor", "java.lang.Class.getDeclaredConstructor",
                "java.lang.Class.getMethods", "java.lang.Class.getDeclaredMethods", "java.lang.Class.getFields",
                "java.lang.Class.getDeclaredFields", "java.beans.Introspector."),
        /** Found from the stack's shape ({@link HotCallee#sortKey}): the key's own frames say only what it computes. */
        SORT_KEY("computing a sort key inside the comparator (every element's key again at each comparison)",
                "The comparator computes each element's sort key on every comparison: Comparator.comparing(f) calls f"
                + " twice per comparison, about 2·n·log₂ n times for n items (some 30,000 times for 1,500), and here the"
                + " key is costly to compute. Compute each key once: map the items to (key, item) pairs or keep the key"
                + " in a field, sort by it, and map back; or store the normalized form where the items are made.") {
            @Override
            boolean shapeBelow(String[] stack, int at) {
                return sortKey(stack, at);
            }
        },
        /**
         * Found from the stack's shape ({@link HotCallee#deepRecursion}) or the JVM's frames that throw the
         * error: the JVM makes a StackOverflowError without running its constructor, so no exception event
         * records it.
         */
        STACK_OVERFLOW("recursing until the thread's stack runs out (StackOverflowError)",
                "The method calls itself once per element of a chain or tree thousands deep and runs out of stack: never"
                + " let StackOverflowError be the depth guard. Walk the structure with a loop (an explicit ArrayDeque for a"
                + " tree), or pass the depth down and stop at a bound before recursing; if the data is that deep by"
                + " design, store it so it need not be walked whole per request (a parent pointer with the depth kept"
                + " beside it, a closure table).",
                "StackOverflowError", "SharedRuntime::throw_StackOverflowError", "InterpreterRuntime::throw_StackOverflowError") {
            @Override
            boolean shapeBelow(String[] stack, int at) {
                return deepRecursion(stack, at);
            }

            @Override
            String why() {
                return "A recursion as deep as the thread's stack costs far more than its calls: it touches every page of"
                        + " the stack on the way down, and the StackOverflowError at the bottom has its stack trace filled in"
                        + " and is then unwound frame by frame through thousands of compiled frames before a catch takes it."
                        + " Every request pays all of it, and the depth grows with the data.";
            }
        };

        final String what;
        final String fix;
        private final String[] prefixes;

        Kind(String what, String fix, String... prefixes) {
            this.what = what;
            this.fix = fix;
            this.prefixes = prefixes;
        }

        /** The broader kind this one narrows when a deeper frame shows it (a file read byte by byte); null otherwise. */
        Kind refines() {
            return null;
        }

        /** Whether the stack's shape below frame {@code at} shows this kind where no single frame names it. */
        boolean shapeBelow(String[] stack, int at) {
            return false;
        }

        /** Why this kind costs what it does, when that differs from plain computation; null otherwise. */
        String why() {
            return null;
        }

        boolean matches(String frame) {
            return Frames.startsWithAny(frame, prefixes);
        }
    }

    /**
     * Map methods that run the caller's function while holding the lock of the key's bin: work
     * done there serializes every request on that key.
     */
    private static final String[] MAP_LOCK = {
        "java.util.concurrent.ConcurrentHashMap.compute", "java.util.concurrent.ConcurrentHashMap.merge"
    };

    private HotCallee() { }

    /**
     * Stacks this deep, most of them one method calling itself, are a recursion on its way to the
     * stack's limit: a service's own recursions (a JSON tree, a filter chain) stay tens of frames deep.
     */
    static final int DEEP_RECURSION = 256;

    /** The application frame at {@code at} repeats {@link #DEEP_RECURSION} times or more: it recurses toward the stack's end. */
    static boolean deepRecursion(String[] stack, int at) {
        if (at < 0 || stack.length < DEEP_RECURSION) return false;
        String self = Frames.stripLine(stack[at]);
        int repeats = 0;
        for (String f : stack) if (Frames.stripLine(f).equals(self) && ++repeats >= DEEP_RECURSION / 2) return true;
        return false;
    }

    /** The frames a sort calls its comparator from. */
    private static final String[] COMPARING = {
        "java.util.Comparator.lambda$comparing", "java.util.Comparator.lambda$thenComparing", "java.util.Comparators$",
        "java.util.TimSort.", "java.util.ComparableTimSort.", "java.util.Arrays.mergeSort", "java.util.Arrays.legacyMergeSort"
    };

    /**
     * The application's frames at {@code at} and above it (a few: the key function, the lambda that
     * calls it) are called by a sort's comparisons: they compute a sort key per comparison.
     */
    static boolean sortKey(String[] stack, int at) {
        int apps = 0;
        for (int i = at - 1; i >= 0; i--) {
            // A lambda's own class (Foo$$Lambda$12.apply) and method-handle plumbing sit between the comparator and the key.
            if (stack[i].contains("$$Lambda") || stack[i].startsWith("java.lang.invoke.")) continue;
            if (!Frames.isApplication(stack[i])) return Frames.startsWithAny(stack[i], COMPARING);
            if (++apps > 3) return false;
        }
        return false;
    }

    /** Whether the stack holds the JVM's frames that throw a StackOverflowError. */
    static boolean throwsStackOverflow(String[] stack) {
        for (int i = stack.length - 1; i >= 0; i--) if (Kind.STACK_OVERFLOW.matches(stack[i])) return true;
        return false;
    }

    /** Index of the deepest application frame of a stack (root first), or -1. */
    static int deepestApplication(String[] stack) {
        for (int i = stack.length - 1; i >= 0; i--) if (Frames.isApplication(stack[i])) return i;
        return -1;
    }

    /** Writes of a primitive's few bytes: a system call each when nothing buffers below them. */
    private static final String[] SMALL_WRITES = {
        "java.io.DataOutputStream.writeInt", "java.io.DataOutputStream.writeLong", "java.io.DataOutputStream.writeShort",
        "java.io.DataOutputStream.writeChar", "java.io.DataOutputStream.writeByte", "java.io.DataOutputStream.writeFloat",
        "java.io.DataOutputStream.writeDouble", "java.io.DataOutputStream.writeBoolean"
    };
    /** A write reaching a file: the JDK's file streams and channels. */
    private static final String[] FILE_WRITES = {
        "java.io.FileOutputStream.write", "sun.nio.ch.FileChannelImpl.write", "java.io.RandomAccessFile.write"
    };

    /**
     * Whether the call frame {@code at} makes (root first) writes a primitive's bytes that reach a file
     * with no buffer between: a system call per value. A service outside the lab wrote a 20 KB export
     * with 5,000 DataOutputStream.writeInt calls straight onto Files.newOutputStream.
     */
    static boolean smallUnbufferedWrite(String[] stack, int at) {
        String callee = calleeBelow(stack, at);
        if (callee == null || !Frames.startsWithAny(callee, SMALL_WRITES)) return false;
        for (int i = at + 1; i < stack.length; i++) {
            if (stack[i].contains("Buffered")) return false;
            if (Frames.startsWithAny(stack[i], FILE_WRITES)) return true;
        }
        return false;
    }

    /** A write system call on a socket or a file. */
    private static final String[] WRITE_CALLS = {
        "sun.nio.ch.SocketDispatcher.write", "sun.nio.ch.FileDispatcherImpl.write", "sun.nio.ch.NioSocketImpl.write",
        "java.net.SocketOutputStream.socketWrite", "sun.nio.ch.SocketChannelImpl.write", "java.io.FileOutputStream.write"
    };

    /** Whether the call frame {@code at} makes (root first) is a flush that reaches a write system call. */
    static boolean flushedWrite(String[] stack, int at) {
        String callee = calleeBelow(stack, at);
        if (callee == null || !Frames.stripLine(callee).endsWith(".flush")) return false;
        for (int i = at + 1; i < stack.length; i++) if (Frames.startsWithAny(stack[i], WRITE_CALLS)) return true;
        return false;
    }

    /**
     * Whether the call frame {@code at} makes (root first) is an ArrayList's, copying its array at the
     * leaf. A service outside the lab drained a 6,000-item ArrayList with remove(0) per request; the
     * profile named the call java.util.ArrayList.<init>, the JIT's debug information for the inlined
     * remove, over an arraycopy stub.
     */
    static boolean listShift(String[] stack, int at) {
        String callee = calleeBelow(stack, at);
        return callee != null && callee.startsWith("java.util.ArrayList.") && !callee.startsWith("java.util.ArrayList.sort")
                && stack[stack.length - 1].contains("arraycopy");
    }

    /** The call the deepest application frame makes, without its line; null when that frame is the leaf. */
    static String callee(String[] stack) {
        int app = deepestApplication(stack);
        return app < 0 ? null : calleeBelow(stack, app);
    }

    /** The call frame {@code at} makes, without its line; null when that frame is the leaf. */
    static String calleeBelow(String[] stack, int at) {
        // Method-handle plumbing (string concatenation's invokedynamic, lambda forms) names no call.
        int i = at + 1;
        while (i < stack.length - 1 && Frames.startsWithAny(stack[i], PLUMBING)) i++;
        return i >= stack.length ? null : Frames.stripLine(stack[i]);
    }

    private static final String[] PLUMBING = {"java.lang.invoke.", "jdk.internal.reflect.", "java.lang.reflect.Method.invoke"};

    /** The kind of computation below the deepest application frame, the first one found from it to the leaf; null if none. */
    static Kind kind(String[] stack) {
        int app = deepestApplication(stack);
        return app < 0 ? null : kindBelow(stack, app);
    }

    /** The kind of computation below frame {@code at}, the first one found from it to the leaf; null if none. */
    static Kind kindBelow(String[] stack, int at) {
        for (Kind k : Kind.values()) if (k.shapeBelow(stack, at)) return k;
        for (int i = at + 1; i < stack.length; i++) {
            for (Kind k : Kind.values()) if (k.matches(stack[i])) return narrowed(k, stack, i);
        }
        return null;
    }

    /** {@code found}, or a kind that narrows it matching a frame below {@code at}. */
    private static Kind narrowed(Kind found, String[] stack, int at) {
        for (int i = at + 1; i < stack.length; i++) {
            for (Kind k : Kind.values()) if (k.refines() == found && k.matches(stack[i])) return k;
        }
        return found;
    }

    /**
     * True when the stack evaluates a parallel stream: on the caller's thread (the pipeline's
     * {@code evaluateParallel}) or on a fork-join worker running one of its parts ({@code AbstractTask}).
     */
    static boolean parallelStream(String[] stack) {
        for (String f : stack) {
            if (f.startsWith("java.util.stream.") && (f.contains(".evaluateParallel") || f.startsWith("java.util.stream.AbstractTask."))) return true;
        }
        return false;
    }

    /** True when the application's computation runs inside a ConcurrentHashMap's per-key lock. */
    static boolean underMapLock(String[] stack) {
        int app = deepestApplication(stack);
        for (int i = 0; i < app; i++) {
            for (String m : MAP_LOCK) if (stack[i].startsWith(m)) return true;
        }
        return false;
    }
}
