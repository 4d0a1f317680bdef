package io.culprit.lab.outbound;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.culprit.lab.LabMode;
import io.culprit.lab.Scenario;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.List;
import org.springframework.boot.autoconfigure.http.HttpMessageConverters;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.HttpOutputMessage;
import org.springframework.http.MediaType;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.converter.json.MappingJackson2HttpMessageConverter;
import org.springframework.stereotype.Component;

/**
 * The outbound clients' encoder/decoder, written like a Feign config that reuses Spring's
 * message converters.
 *
 * <p>converter-rebuild (seed 3): the factory builds {@code new HttpMessageConverters()} on every
 * encode and every decode. Each build creates the default converter set: three Jackson
 * ObjectMappers (JSON, XML) through Jackson2ObjectMapperBuilder, which tries to load the optional jdk8 and
 * jsr310 modules (absent here, so ClassNotFoundException, swallowed), and XML converters whose
 * TransformerFactory looks itself up through META-INF/services. From the fat jar every failed load
 * and every service lookup walks all nested jars. The fixed twin builds the converters once,
 * without defaults.
 */
@Component
public class ConvertersCodec {

    private final HttpMessageConverters shared;
    private final LabMode mode;

    public ConvertersCodec(ObjectMapper mapper, LabMode mode) {
        this.shared = new HttpMessageConverters(false, List.of(new MappingJackson2HttpMessageConverter(mapper)));
        this.mode = mode;
    }

    private HttpMessageConverters converters() {
        return mode.faulty(Scenario.CONVERTER_REBUILD) ? new HttpMessageConverters() : shared;
    }

    @SuppressWarnings("unchecked")
    public byte[] encode(Object value) {
        for (HttpMessageConverter<?> c : converters().getConverters()) {
            if (c.canWrite(value.getClass(), MediaType.APPLICATION_JSON)) {
                Output out = new Output();
                try {
                    ((HttpMessageConverter<Object>) c).write(value, MediaType.APPLICATION_JSON, out);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                return out.body.toByteArray();
            }
        }
        throw new IllegalStateException("no converter writes " + value.getClass().getName() + " as JSON");
    }

    @SuppressWarnings("unchecked")
    public <T> T decode(byte[] body, Class<T> type) {
        for (HttpMessageConverter<?> c : converters().getConverters()) {
            if (c.canRead(type, MediaType.APPLICATION_JSON)) {
                try {
                    return ((HttpMessageConverter<T>) c).read(type, new Input(body));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        throw new IllegalStateException("no converter reads " + type.getName() + " from JSON");
    }

    private static final class Output implements HttpOutputMessage {
        final ByteArrayOutputStream body = new ByteArrayOutputStream(256);
        final HttpHeaders headers = new HttpHeaders();

        @Override
        public OutputStream getBody() {
            return body;
        }

        @Override
        public HttpHeaders getHeaders() {
            return headers;
        }
    }

    private static final class Input implements HttpInputMessage {
        final byte[] body;
        final HttpHeaders headers = new HttpHeaders();

        Input(byte[] body) {
            this.body = body;
            headers.setContentType(MediaType.APPLICATION_JSON);
        }

        @Override
        public InputStream getBody() {
            return new ByteArrayInputStream(body);
        }

        @Override
        public HttpHeaders getHeaders() {
            return headers;
        }
    }
}
