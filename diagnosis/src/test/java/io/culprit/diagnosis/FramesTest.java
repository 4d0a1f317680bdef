package io.culprit.diagnosis;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.rules.CpuHotspotRule;
import io.culprit.model.CaseFile;
import io.culprit.model.CaseInfo;
import io.culprit.model.Finding;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The line between the application's code and its libraries, with and without the packages the agent recorded. */
class FramesTest {
    @TempDir Path dir;

    @Test
    void aLambdasSpunClassIsPassedOverForTheMethodThatWroteIt() {
        // map(CompletableFuture::join): the method reference's class calls the JDK directly; its writer is further down.
        java.util.List<String> waiter = java.util.List.of("java.util.concurrent.CompletableFuture.join:2117",
                "com.acme.quotes.QuoteService$$Lambda$2763+0x00007f236904c218.1892911432.apply",
                "java.util.stream.ReferencePipeline$3$1.accept:197", "java.util.stream.ReferencePipeline.toList:627",
                "com.acme.quotes.QuoteService.compare:32", "com.acme.quotes.QuoteController.renewal:18",
                "org.springframework.web.method.support.InvocableHandlerMethod.doInvoke:252");
        assertThat(Frames.firstNonJdk(waiter)).isEqualTo("com.acme.quotes.QuoteService.compare:32");
        assertThat(Frames.callPath(waiter, 2)).isEqualTo("com.acme.quotes.QuoteService.compare:32"
                + " ← org.springframework.web.method.support.InvocableHandlerMethod.doInvoke:252");
        assertThat(Frames.isLambdaClass("com.acme.Svc$$Lambda/0x0000000801234.apply")).isTrue();  // JDK 21's spelling
    }

    @Test
    void recordedPackagesWidenToTheirOrganisationUnlessALibraryOrTheJdkSharesTheRoot() {
        assertThat(Frames.applicationPrefixes("com.acme.shop.web,com.acme.shop.repo")).containsExactly("com.acme.");
        assertThat(Frames.applicationPrefixes("org.springframework.samples.petclinic"))
                .containsExactly("org.springframework.samples.petclinic.");
        assertThat(Frames.applicationPrefixes("io.culprit.lab")).containsExactly("io.culprit.lab.");
        assertThat(Frames.applicationPrefixes("shop")).containsExactly("shop.");
        assertThat(Frames.applicationPrefixes("io.github.someone.tool")).containsExactly("io.github.someone.tool.");
        // A shaded jar's packages as agents before session 45 recorded them: the libraries beside the application are left out.
        assertThat(Frames.applicationPrefixes("ch.qos.logback.classic,com.acme.depot,com.fasterxml.jackson.databind,io.dropwizard.core,"
                + "org.eclipse.jetty.server,org.glassfish.jersey.server")).containsExactly("com.acme.");
        assertThat(Frames.applicationPrefixes("")).isEmpty();
        assertThat(Frames.applicationPrefixes(null)).isEmpty();
    }

    @Test
    void withRecordedPackagesAnUnlistedLibraryIsNotTheApplication() {
        String modelMapper = "org.modelmapper.internal.util.Types.isProxiedByJavassist:77";
        // Without the case's packages only the list of known libraries draws the line: ModelMapper is not on it.
        assertThat(Frames.isApplication(modelMapper)).isTrue();
        assertThat(Frames.withApplication("shop", () -> Frames.isApplication(modelMapper))).isFalse();
        assertThat(Frames.withApplication("shop", () -> Frames.isApplication("shop.OrderMapper.toDto:31"))).isTrue();
        // A service whose packages lie under a framework's (Spring's PetClinic) is still its own.
        String petclinic = "org.springframework.samples.petclinic.owner.OwnerController.find:60";
        assertThat(Frames.isApplication(petclinic)).isFalse();
        assertThat(Frames.withApplication("org.springframework.samples.petclinic", () -> Frames.isApplication(petclinic))).isTrue();
        assertThat(Frames.withApplication("org.springframework.samples.petclinic",
                () -> Frames.isApplication("org.springframework.web.servlet.DispatcherServlet.doDispatch"))).isFalse();
        // culprit's own code in the target never is, nor generated code in the application's package.
        assertThat(Frames.withApplication("io.culprit", () -> Frames.isApplication("io.culprit.agent.probe.CallProbe.exit"))).isFalse();
        assertThat(Frames.withApplication("shop", () -> Frames.isApplication("shop.OrderService$$SpringCGLIB$$0.place"))).isFalse();
        // Nor the classes Quarkus' ArC and Micronaut generate around a bean: the bean's own frame is below theirs.
        for (String generated : new String[] {"shop.LoanService_Subclass.renew:-1", "shop.LoanService_Subclass$0.apply:-1", "shop.LoanService_ClientProxy.renew:-1",
                "shop.$LoanService$Definition$Intercepted.renew:-1", "shop.$LoanService$Definition$Exec.dispatch:-1"}) {
            assertThat(Frames.isApplication(generated)).as(generated).isFalse();
        }
        assertThat(Frames.isApplication("shop.LoanService.renew:42")).isTrue();
        // The scope ends with the body.
        assertThat(Frames.isApplication(modelMapper)).isTrue();
    }

    @Test
    void theEngineJudgesACaseWithTheApplicationPackagesItsAgentRecorded() {
        String request = "java.lang.Thread.run;org.apache.catalina.connector.CoyoteAdapter.service;"
                + "org.springframework.web.servlet.DispatcherServlet.doDispatch;shop.OrderController.list;shop.OrderMapper.toDto;";
        String profile = request + "org.modelmapper.ModelMapper.map;org.modelmapper.internal.util.Types.isProxiedByJavassist 700\n"
                + request + "shop.OrderMapper.toDto 20\n"
                + request + "org.springframework.jdbc.core.JdbcTemplate.query;org.postgresql.core.v3.QueryExecutorImpl.execute 280\n";
        Finding without = hotspot(dir.resolve("without"), profile, Map.of());
        Finding with = hotspot(dir.resolve("with"), profile, Map.of("appPackages", "shop"));
        // Without the packages ModelMapper's introspection reads as the service's own hot method; with them,
        // the service's method that calls it is.
        assertThat(without.culprit()).startsWith("org.modelmapper.");
        assertThat(with.culprit()).isEqualTo("shop.OrderMapper.toDto");
    }

    private static Finding hotspot(Path caseDir, String profile, Map<String, String> target) {
        CaseFile cf = CaseBuilder.in(caseDir, 10, 2).file("profiles/cpu.collapsed", profile).caseFile();
        Map<String, String> t = new java.util.HashMap<>(cf.info().target());
        t.putAll(target);
        cf.write(CaseInfo.of("fixture", CaseBuilder.T0, CaseBuilder.T0 + 10_000, "test", t));
        return Diagnosis.run(CaseFile.open(caseDir), java.util.List.of(new CpuHotspotRule())).finding("cpu-hotspot").orElseThrow();
    }
}
