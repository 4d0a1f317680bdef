package jakarta.servlet.http;

/**
 * Stands in for the servlet container's request entry in the jfr module's tests, which have no
 * container: a wait below {@code HttpServlet.service} is on a request's path, as in a real server.
 */
public class HttpServlet {
    public void service(Runnable request) {
        request.run();
    }
}
