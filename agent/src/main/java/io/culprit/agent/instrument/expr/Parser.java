package io.culprit.agent.instrument.expr;

import java.util.ArrayList;
import java.util.List;

/**
 * Recursive descent over the expression text. Precedence, low to high: ternary, or, and,
 * equality/relational, additive, multiplicative, unary, postfix (.name, .m(), [i]), primary.
 * Refusals of unsafe constructs happen here, so nothing is woven for a refused expression.
 */
final class Parser {

    private final String s;
    private final boolean unsafe;
    private int pos;

    Parser(String text, boolean unsafe) {
        this.s = text;
        this.unsafe = unsafe;
    }

    Node parseAll() throws ExpressionException {
        skip();
        if (pos >= s.length()) {
            throw error("empty expression");
        }
        Node n = ternary();
        skip();
        if (pos < s.length()) {
            throw error("unexpected '" + s.charAt(pos) + "'");
        }
        return n;
    }

    private ExpressionException error(String what) {
        return new ExpressionException("malformed expression at position " + pos + ": " + what + " in '" + s + "'");
    }

    private ExpressionException refused(String what, int at) {
        return new ExpressionException("refused: " + what + " at position " + at
                + " needs an agent started with --unsafe in '" + s + "'");
    }

    private void skip() {
        while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) {
            pos++;
        }
    }

    private boolean eat(String tok) {
        skip();
        if (s.startsWith(tok, pos)) {
            boolean word = Character.isLetter(tok.charAt(0));
            int end = pos + tok.length();
            if (word && end < s.length() && Character.isJavaIdentifierPart(s.charAt(end))) {
                return false;
            }
            pos = end;
            return true;
        }
        return false;
    }

    private void expect(String tok) throws ExpressionException {
        if (!eat(tok)) {
            throw error("expected '" + tok + "'" + (pos < s.length() ? " but found '" + s.charAt(pos) + "'" : " but the expression ended"));
        }
    }

    private Node ternary() throws ExpressionException {
        Node c = or();
        if (eat("?")) {
            Node a = ternary();
            expect(":");
            Node b = ternary();
            return e -> Expression.truthy(c.eval(e)) ? a.eval(e) : b.eval(e);
        }
        return c;
    }

    private Node or() throws ExpressionException {
        Node l = and();
        while (eat("||") || eat("or")) {
            Node a = l;
            Node r = and();
            l = e -> Expression.truthy(a.eval(e)) || Expression.truthy(r.eval(e));
        }
        return l;
    }

    private Node and() throws ExpressionException {
        Node l = comparison();
        while (eat("&&") || eat("and")) {
            Node a = l;
            Node r = comparison();
            l = e -> Expression.truthy(a.eval(e)) && Expression.truthy(r.eval(e));
        }
        return l;
    }

    private Node comparison() throws ExpressionException {
        Node l = additive();
        for (String op : new String[] {"==", "!=", "<=", ">=", "<", ">"}) {
            if (eat(op)) {
                Node a = l;
                Node r = additive();
                return e -> Ops.compare(op, a.eval(e), r.eval(e));
            }
        }
        return l;
    }

    private Node additive() throws ExpressionException {
        Node l = multiplicative();
        while (true) {
            String op = eat("+") ? "+" : eat("-") ? "-" : null;
            if (op == null) {
                return l;
            }
            Node a = l;
            Node r = multiplicative();
            l = e -> Ops.arithmetic(op, a.eval(e), r.eval(e));
        }
    }

    private Node multiplicative() throws ExpressionException {
        Node l = unary();
        while (true) {
            String op = eat("*") ? "*" : eat("/") ? "/" : eat("%") ? "%" : null;
            if (op == null) {
                return l;
            }
            Node a = l;
            Node r = unary();
            l = e -> Ops.arithmetic(op, a.eval(e), r.eval(e));
        }
    }

    private Node unary() throws ExpressionException {
        if (eat("!") || eat("not")) {
            Node n = unary();
            return e -> !Expression.truthy(n.eval(e));
        }
        if (eat("-")) {
            Node n = unary();
            return e -> Ops.arithmetic("-", 0L, n.eval(e));
        }
        return postfix(primary());
    }

    private Node postfix(Node base) throws ExpressionException {
        Node n = base;
        while (true) {
            skip();
            if (eat(".")) {
                int at = pos;
                String name = identifier();
                if (eat("(")) {
                    List<Node> args = arguments(")");
                    if (!unsafe && !(args.isEmpty() && Access.safeMethod(name))) {
                        throw refused("call of method '" + name + "'", at);
                    }
                    Node target = n;
                    n = e -> Access.call(target.eval(e), name, evalAll(args, e));
                } else {
                    Node target = n;
                    n = e -> Access.property(target.eval(e), name);
                }
            } else if (eat("[")) {
                Node target = n;
                Node index = ternary();
                expect("]");
                n = e -> Access.index(target.eval(e), index.eval(e));
            } else {
                return n;
            }
        }
    }

    private Node primary() throws ExpressionException {
        skip();
        if (pos >= s.length()) {
            throw error("expected a value but the expression ended");
        }
        char c = s.charAt(pos);
        int at = pos;
        if (eat("(")) {
            Node n = ternary();
            expect(")");
            return n;
        }
        if (eat("{")) {
            List<Node> items = arguments("}");
            return e -> evalAll(items, e);
        }
        if (c == '#') {
            pos++;
            String name = identifier();
            return e -> e.variable(name);
        }
        if (c == '\'' || c == '"') {
            String str = string(c);
            return e -> str;
        }
        if (Character.isDigit(c)) {
            Object num = number();
            return e -> num;
        }
        if (c == '@') {
            pos++;
            String cls = qualified();
            expect("@");
            String member = identifier();
            boolean call = eat("(");
            if (!unsafe) {
                throw refused(call ? "static method call @" + cls + "@" + member + "()" : "static field @" + cls + "@" + member, at);
            }
            List<Node> args = call ? arguments(")") : List.of();
            return e -> Access.staticMember(cls, member, call, evalAll(args, e));
        }
        if (eat("new")) {
            String cls = qualified();
            expect("(");
            List<Node> args = arguments(")");
            if (!unsafe) {
                throw refused("constructor new " + cls + "()", at);
            }
            return e -> Access.construct(cls, evalAll(args, e));
        }
        if (Character.isJavaIdentifierStart(c)) {
            String name = identifier();
            switch (name) {
                case "true": return e -> Boolean.TRUE;
                case "false": return e -> Boolean.FALSE;
                case "null": return e -> null;
                default: return e -> e.root(name);
            }
        }
        throw error("unexpected '" + c + "'");
    }

    private List<Node> arguments(String close) throws ExpressionException {
        List<Node> out = new ArrayList<>();
        if (eat(close)) {
            return out;
        }
        do {
            out.add(ternary());
        } while (eat(","));
        expect(close);
        return out;
    }

    private static List<Object> evalAll(List<Node> nodes, Env e) throws EvalException {
        List<Object> out = new ArrayList<>(nodes.size());
        for (Node n : nodes) {
            out.add(n.eval(e));
        }
        return out;
    }

    private String identifier() throws ExpressionException {
        skip();
        int start = pos;
        if (pos < s.length() && Character.isJavaIdentifierStart(s.charAt(pos))) {
            pos++;
            while (pos < s.length() && Character.isJavaIdentifierPart(s.charAt(pos))) {
                pos++;
            }
            return s.substring(start, pos);
        }
        throw error("expected a name");
    }

    private String qualified() throws ExpressionException {
        StringBuilder sb = new StringBuilder(identifier());
        while (pos < s.length() && s.charAt(pos) == '.') {
            pos++;
            sb.append('.').append(identifier());
        }
        return sb.toString();
    }

    private String string(char quote) throws ExpressionException {
        int start = pos++;
        StringBuilder sb = new StringBuilder();
        while (pos < s.length() && s.charAt(pos) != quote) {
            char ch = s.charAt(pos++);
            if (ch == '\\' && pos < s.length()) {
                ch = s.charAt(pos++);
            }
            sb.append(ch);
        }
        if (pos >= s.length()) {
            pos = start;
            throw error("unterminated string");
        }
        pos++;
        return sb.toString();
    }

    private Object number() throws ExpressionException {
        int start = pos;
        while (pos < s.length() && (Character.isDigit(s.charAt(pos)) || s.charAt(pos) == '.')) {
            pos++;
        }
        String t = s.substring(start, pos);
        if (pos < s.length() && (s.charAt(pos) == 'L' || s.charAt(pos) == 'l')) {
            pos++;
        }
        try {
            return t.contains(".") ? (Object) Double.parseDouble(t) : (Object) Long.parseLong(t);
        } catch (NumberFormatException ex) {
            pos = start;
            throw error("bad number '" + t + "'");
        }
    }
}
