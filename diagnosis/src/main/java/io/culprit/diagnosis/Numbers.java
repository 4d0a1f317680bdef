package io.culprit.diagnosis;

import io.culprit.model.Finding;
import java.util.ArrayList;
import java.util.List;

/**
 * The numbers a rule prints, each tied to the evidence ref it was computed from, so the report
 * can link "42 %" itself to the chart, row or flame graph behind it. A rule makes one per
 * evaluation (rules stay stateless), writes each number once through {@link #tag} where it
 * builds the text, and hands the pairs to its finding with {@code builder.numbers(n.refs())}.
 *
 * <p>Tag a number where it is put into the text that is returned, not where it is computed: a
 * tag whose text the finding does not print would point at nothing.
 */
public final class Numbers {
    private final List<Finding.NumberRef> refs = new ArrayList<>();

    /**
     * Returns {@code text} unchanged, remembering that it was computed from {@code ref}. "?" (what
     * {@link Fmt} prints for a value that was not measured) is not a number and is not recorded.
     */
    public String tag(String text, String ref) {
        if (text != null && !text.isEmpty() && !text.equals("?") && ref != null) refs.add(new Finding.NumberRef(text, ref));
        return text;
    }

    /** The pairs recorded so far, in the order they were tagged. */
    public List<Finding.NumberRef> refs() {
        return List.copyOf(refs);
    }
}
