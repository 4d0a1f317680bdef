package io.culprit.agent.instrument;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.culprit.agent.instrument.expr.Env;
import io.culprit.agent.instrument.expr.EvalException;
import io.culprit.agent.instrument.expr.Expression;
import io.culprit.agent.instrument.expr.ExpressionException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExpressionTest {

    static Object eval(String text, Env env) throws Exception {
        return Expression.parse(text, false).eval(env);
    }

    static Env env() {
        Env e = new Env();
        e.params = new Object[] {List.of("a", "b", "c"), Map.of("k", 5), new int[] {7, 8}, "text"};
        e.returnObj = 10;
        e.costMs = 250.5;
        return e;
    }

    @Test
    void arithmeticComparisonAndLogic() throws Exception {
        assertThat(eval("#cost > 200", env())).isEqualTo(true);
        assertThat(eval("#cost > 200 && returnObj < 5", env())).isEqualTo(false);
        assertThat(eval("returnObj * 2 + 1", env())).isEqualTo(21L);
        assertThat(eval("(returnObj - 4) / 4", env())).isEqualTo(1L);
        assertThat(eval("returnObj / 4.0", env())).isEqualTo(2.5);
        assertThat(eval("!isThrow and returnObj == 10", env())).isEqualTo(true);
        assertThat(eval("params[3] == 'text' ? 'y' : 'n'", env())).isEqualTo("y");
        assertThat(eval("'n=' + returnObj", env())).isEqualTo("n=10");
    }

    @Test
    void accessToListsMapsArraysAndSafeMethods() throws Exception {
        assertThat(eval("params[0][1]", env())).isEqualTo("b");
        assertThat(eval("params[0].size()", env())).isEqualTo(3);
        assertThat(eval("params[1].k", env())).isEqualTo(5);
        assertThat(eval("params[1]['k']", env())).isEqualTo(5);
        assertThat(eval("params[2][1]", env())).isEqualTo(8);
        assertThat(eval("params[2].length", env())).isEqualTo(2);
        assertThat(eval("{params[3], returnObj}", env())).isEqualTo(List.of("text", 10));
        assertThat(eval("params.length", env())).isEqualTo(4);
    }

    @Test
    void malformedExpressionsNameThePosition() {
        assertThatThrownBy(() -> Expression.parse("params[0", false)).isInstanceOf(ExpressionException.class)
                .hasMessage("malformed expression at position 8: expected ']' but the expression ended in 'params[0'");
        assertThatThrownBy(() -> Expression.parse("a + * b", false)).hasMessageStartingWith("malformed expression at position 4: unexpected '*'");
        assertThatThrownBy(() -> Expression.parse("'open", false)).hasMessageStartingWith("malformed expression at position 0: unterminated string");
        assertThatThrownBy(() -> Expression.parse("a b", false)).hasMessageStartingWith("malformed expression at position 2: unexpected 'b'");
        assertThatThrownBy(() -> Expression.parse("", false)).hasMessageStartingWith("malformed expression at position 0: empty expression");
    }

    @Test
    void sandboxRefusesStaticsConstructorsAndArbitraryMethods() {
        assertThatThrownBy(() -> Expression.parse("@java.lang.Runtime@getRuntime().exec('x')", false))
                .hasMessageStartingWith("refused: static method call @java.lang.Runtime@getRuntime() at position 0");
        assertThatThrownBy(() -> Expression.parse("@java.lang.Integer@MAX_VALUE", false))
                .hasMessageStartingWith("refused: static field @java.lang.Integer@MAX_VALUE at position 0");
        assertThatThrownBy(() -> Expression.parse("new java.lang.Thread()", false))
                .hasMessageStartingWith("refused: constructor new java.lang.Thread()");
        assertThatThrownBy(() -> Expression.parse("target.getClass().getClassLoader().loadClass('x')", false))
                .hasMessageStartingWith("refused: call of method 'loadClass' at position 35");
    }

    @Test
    void unsafeModeAllowsStaticCalls() throws Exception {
        assertThat(((Number) Expression.parse("@java.lang.Math@max(3, 9)", true).eval(env())).longValue()).isEqualTo(9L);
        assertThat(Expression.parse("@java.lang.Integer@MAX_VALUE", true).eval(env())).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void evaluationErrorsAreReportedNotThrownIntoTheApplication() {
        assertThatThrownBy(() -> eval("returnObj.nope", env())).isInstanceOf(EvalException.class)
                .hasMessageContaining("no property 'nope'");
        assertThatThrownBy(() -> eval("throwExp.message", env())).hasMessage("cannot read .message of null");
        assertThatThrownBy(() -> eval("unknown", env())).hasMessageStartingWith("unknown name 'unknown'");
    }
}
