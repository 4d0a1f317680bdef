package io.culprit.agent.profile;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/**
 * A pprof file read back independently of the converter that wrote it: gunzip, then the protobuf
 * wire format walked against pprof's profile.proto (sample_type = 1, sample = 2, location = 4,
 * function = 5, string_table = 6), so the test checks the file a pprof reader would see.
 */
final class PprofProfile {
    final List<String> strings = new ArrayList<>();
    /** sample_type[0] as "type/unit", e.g. "cpu/count". */
    String sampleType;
    /** Stacks root first, frames joined by ';' (the collapsed format), with their summed values. */
    final Map<String, Long> collapsed = new HashMap<>();
    long total;

    static PprofProfile read(Path file) throws IOException {
        byte[] raw = Files.readAllBytes(file);
        if (raw.length < 2 || (raw[0] & 0xff) != 0x1f || (raw[1] & 0xff) != 0x8b) throw new IOException(file + " is not gzipped");
        byte[] pb;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
            pb = in.readAllBytes();
        }
        return new PprofProfile(Message.parse(pb));
    }

    private PprofProfile(Message profile) {
        for (Object s : profile.all(6)) strings.add(new String((byte[]) s, StandardCharsets.UTF_8));
        Map<Long, String> functions = new HashMap<>();
        for (Object f : profile.all(5)) {
            Message m = Message.parse((byte[]) f);
            functions.put(m.number(1), strings.get((int) m.number(2)));
        }
        Map<Long, String> locations = new HashMap<>();
        for (Object l : profile.all(4)) {
            Message m = Message.parse((byte[]) l);
            Message line = Message.parse((byte[]) m.all(4).get(0));
            locations.put(m.number(1), functions.get(line.number(1)));
        }
        Message type = Message.parse((byte[]) profile.all(1).get(0));
        sampleType = strings.get((int) type.number(1)) + "/" + strings.get((int) type.number(2));
        for (Object s : profile.all(2)) {
            Message m = Message.parse((byte[]) s);
            List<Long> ids = m.numbers(1);
            StringBuilder stack = new StringBuilder();
            for (int i = ids.size() - 1; i >= 0; i--) { // pprof lists the leaf first
                if (stack.length() > 0) stack.append(';');
                stack.append(locations.get(ids.get(i)));
            }
            long value = m.number(2);
            collapsed.merge(stack.toString(), value, Long::sum);
            total += value;
        }
    }

    /** One protobuf message: field number to values (Long for varint/fixed, byte[] for length-delimited). */
    static final class Message {
        private final Map<Integer, List<Object>> fields = new HashMap<>();

        static Message parse(byte[] b) {
            Message m = new Message();
            int[] pos = {0};
            while (pos[0] < b.length) {
                long key = varint(b, pos);
                int field = (int) (key >>> 3);
                Object value;
                switch ((int) (key & 7)) {
                    case 0: value = varint(b, pos); break;
                    case 1: value = fixed(b, pos, 8); break;
                    case 5: value = fixed(b, pos, 4); break;
                    case 2:
                        int len = (int) varint(b, pos);
                        value = Arrays.copyOfRange(b, pos[0], pos[0] + len);
                        pos[0] += len;
                        break;
                    default: throw new IllegalArgumentException("wire type " + (key & 7) + " at " + pos[0]);
                }
                m.fields.computeIfAbsent(field, k -> new ArrayList<>()).add(value);
            }
            return m;
        }

        List<Object> all(int field) {
            return fields.getOrDefault(field, List.of());
        }

        long number(int field) {
            List<Object> v = all(field);
            return v.isEmpty() ? 0 : (Long) v.get(0);
        }

        /** A repeated integer field, packed (one byte[]) or not. */
        List<Long> numbers(int field) {
            List<Long> out = new ArrayList<>();
            for (Object v : all(field)) {
                if (v instanceof Long) {
                    out.add((Long) v);
                } else {
                    byte[] packed = (byte[]) v;
                    int[] pos = {0};
                    while (pos[0] < packed.length) out.add(varint(packed, pos));
                }
            }
            return out;
        }

        private static long varint(byte[] b, int[] pos) {
            long v = 0;
            for (int shift = 0; ; shift += 7) {
                byte x = b[pos[0]++];
                v |= (long) (x & 0x7f) << shift;
                if (x >= 0) return v;
            }
        }

        private static long fixed(byte[] b, int[] pos, int n) {
            long v = 0;
            for (int i = 0; i < n; i++) v |= (long) (b[pos[0]++] & 0xff) << (8 * i);
            return v;
        }
    }
}
