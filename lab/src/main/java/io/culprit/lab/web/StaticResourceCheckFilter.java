package io.culprit.lab.web;

import io.culprit.lab.LabMode;
import io.culprit.lab.Scenario;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Before any handler runs, checks whether the request path is a static resource of the webjar,
 * as embedded Tomcat's mapper did for every request in seed 1 (welcome-file and static checks).
 *
 * <p>idle-resource-scan: the resource listing expires after {@code lab.resource-cache-ttl-ms}
 * (5 s, Tomcat's default), so the first request after an idle gap re-reads the whole jar. The
 * fixed twin never expires the listing.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 10)
public class StaticResourceCheckFilter extends OncePerRequestFilter {

    private static final String PREFIX = "META-INF/resources/webjars/";

    private final WebjarResources webjar = WebjarResources.swaggerUi(getClass().getClassLoader());
    private final LabMode mode;
    private final long ttlNanos;

    public StaticResourceCheckFilter(LabMode mode, @Value("${lab.resource-cache-ttl-ms:5000}") long ttlMs) {
        this.mode = mode;
        this.ttlNanos = TimeUnit.MILLISECONDS.toNanos(ttlMs);
    }

    @Override
    protected void doFilterInternal(HttpServletRequest req, HttpServletResponse resp, FilterChain chain)
            throws ServletException, IOException {
        long ttl = mode.faulty(Scenario.IDLE_RESOURCE_SCAN) ? ttlNanos : 0;
        if (webjar.contains(PREFIX + req.getRequestURI().substring(1), ttl)) {
            resp.setHeader("X-Lab-Static", "webjar");
        }
        chain.doFilter(req, resp);
    }
}
