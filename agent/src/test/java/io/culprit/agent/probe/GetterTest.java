package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A hook's getter reads primitives, objects and one-String-argument methods, across classes, and never throws. */
class GetterTest {

    /** Public, as application classes are; the getter must not need to link against it. */
    public static final class Response {
        private final int status;

        Response(int status) {
            this.status = status;
        }

        public int getStatus() {
            return status;
        }

        public String getName() {
            return "r" + status;
        }

        public Object getAttribute(String name) {
            return name.equals("a") ? "value of a" : null;
        }

        public boolean isCommitted() {
            throw new IllegalStateException("a getter that fails");
        }
    }

    /** Another class with a method of the same name, returning a boxed number. */
    public static final class Other {
        public Long getStatus() {
            return 503L;
        }
    }

    @Test
    void readsNumbersObjectsAndStringArgumentMethods() {
        Getter status = new Getter("getStatus");
        assertThat(status.number(new Response(200))).isEqualTo(200.0);
        assertThat(status.number(new Response(404))).isEqualTo(404.0);
        assertThat(status.number(new Other())).as("a second class at the same site").isEqualTo(503.0);
        assertThat(status.number(new Response(500))).isEqualTo(500.0);
        assertThat(new Getter("getName").call(new Response(7))).isEqualTo("r7");
        assertThat(new Getter("getAttribute", "a").call(new Response(1))).isEqualTo("value of a");
        assertThat(new Getter("getAttribute", "b").call(new Response(1))).isNull();
    }

    @Test
    void missingMethodsNullTargetsAndFailuresReadAsNothing() {
        assertThat(new Getter("getStatus").number(null)).isNaN();
        assertThat(new Getter("getStatus").number(new Object())).isNaN();
        assertThat(new Getter("getName").number(new Response(1))).as("not a number").isNaN();
        assertThat(new Getter("isCommitted").call(new Response(1))).isNull();
        assertThat(new Getter("isCommitted").number(new Response(1))).isNaN();
        Map<String, Integer> m = new HashMap<>();
        m.put("k", 1);
        assertThat(new Getter("size").number(m)).isEqualTo(1.0);
    }
}
