package io.culprit.agent.profile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A self-contained HTML flame graph of collapsed stacks: one file, no network, click a frame to
 * zoom into it. Small on purpose, built from the same collapsed stacks as the text report; for
 * richer views use {@code --format pprof}, or {@code --format jfr} and {@code culprit analyze --flame}.
 */
final class FlameGraphHtml {
    private FlameGraphHtml() { }

    static void write(Map<String, Long> collapsed, String title, Path out) throws IOException {
        StringBuilder data = new StringBuilder("[");
        for (Map.Entry<String, Long> e : collapsed.entrySet()) {
            if (data.length() > 1) data.append(',');
            data.append('[').append(js(e.getKey())).append(',').append(e.getValue()).append(']');
        }
        data.append(']');
        String html = TEMPLATE.replace("$TITLE", title.replace("<", "&lt;")).replace("$DATA", data);
        Files.write(out, html.getBytes(StandardCharsets.UTF_8));
    }

    private static String js(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') sb.append('\\').append(c);
            else if (c < 0x20 || c == '<' || c == '>') sb.append(String.format("\\u%04x", (int) c));
            else sb.append(c);
        }
        return sb.append('"').toString();
    }

    // Builds a tree from the stacks and lays it out as absolutely positioned divs, root at the bottom.
    private static final String TEMPLATE = "<!DOCTYPE html><html><head><meta charset='utf-8'><title>$TITLE</title>\n"
            + "<style>body{font:12px sans-serif;margin:8px}#g{position:relative}.f{position:absolute;height:15px;"
            + "overflow:hidden;white-space:nowrap;border:1px solid #fff;box-sizing:border-box;cursor:pointer;padding-left:2px}"
            + "</style></head><body><h3>$TITLE</h3><div id='info'>click a frame to zoom, click the root to reset</div>"
            + "<div id='g'></div><script>\n"
            + "const stacks=$DATA;const root={n:'all',v:0,c:{}};\n"
            + "for(const [s,v] of stacks){let t=root;t.v+=v;for(const f of s.split(';')){t=t.c[f]||(t.c[f]={n:f,v:0,c:{}});t.v+=v;}}\n"
            + "function depth(t){let d=0;for(const k in t.c)d=Math.max(d,depth(t.c[k]));return d+1;}\n"
            + "function draw(z){const g=document.getElementById('g');g.innerHTML='';const W=g.clientWidth||1200,D=depth(z);"
            + "g.style.height=(D*16)+'px';(function lay(t,x,d){const w=W*t.v/z.v;if(w<1)return;const e=document.createElement('div');"
            + "e.className='f';e.style.left=x+'px';e.style.width=w+'px';e.style.top=((D-d-1)*16)+'px';"
            + "e.style.background='hsl('+(20+(t.n.length*7)%40)+',90%,'+(60+(d%3)*5)+'%)';"
            + "e.textContent=t.n;e.title=t.n+' ('+t.v+' samples, '+(100*t.v/root.v).toFixed(2)+'%)';"
            + "e.onclick=()=>draw(t===z?root:t);g.appendChild(e);let cx=x;for(const k in t.c){lay(t.c[k],cx,d+1);cx+=W*t.c[k].v/z.v;}})(z,0,0);}\n"
            + "draw(root);</script></body></html>\n";
}
