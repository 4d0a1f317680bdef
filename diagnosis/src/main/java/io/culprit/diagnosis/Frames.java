package io.culprit.diagnosis;

import java.util.List;

/**
 * Stack-frame helpers. A finding names the first frame that is not the JDK's: that is where a
 * fix can be made (the library or application code that drives the JDK into the costly path).
 */
public final class Frames {
    private static final String[] JDK = {"java.", "javax.", "jdk.", "sun.", "com.sun."};

    private Frames() { }

    public static boolean isJdk(String frame) {
        for (String p : JDK) if (frame.startsWith(p)) return true;
        return false;
    }

    /** First non-JDK frame, else the first frame, else null. */
    public static String firstNonJdk(List<String> stack) {
        for (String f : stack) if (!isJdk(f)) return f;
        return stack.isEmpty() ? null : stack.get(0);
    }

    /** True when some frame belongs to {@code classOrFrame} (a class name, or a frame prefix). */
    public static boolean mentions(List<String> stack, String classOrFrame) {
        if (classOrFrame == null || classOrFrame.isEmpty()) return false;
        String cls = stripLine(classOrFrame);
        for (String f : stack) {
            String g = stripLine(f);
            if (g.equals(cls) || g.startsWith(cls + ".") || g.startsWith(cls + "$")) return true;
        }
        return false;
    }

    /** {@code a.B.m:42} → {@code a.B.m}. */
    public static String stripLine(String frame) {
        int colon = frame.lastIndexOf(':');
        return colon > 0 && frame.substring(colon + 1).chars().allMatch(Character::isDigit) ? frame.substring(0, colon) : frame;
    }

    /** Simple class name plus method of a frame, for narrow columns: {@code a.b.C.m:1} → {@code C.m}. */
    public static String shortName(String frame) {
        if (frame == null) return null;
        String f = stripLine(frame);
        int m = f.lastIndexOf('.');
        if (m <= 0) return f;
        int c = f.lastIndexOf('.', m - 1);
        return f.substring(c + 1);
    }
}
