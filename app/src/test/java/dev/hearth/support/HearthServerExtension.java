package dev.hearth.support;

import dev.hearth.client.HearthClient;
import dev.hearth.server.Config;
import dev.hearth.server.postgres.PostgresHost;
import dev.hearth.server.sandbox.runsc.RunscRuntime;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestInstancePostProcessor;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.ReflectionSupport;

/**
 * Runs {@link HearthServerTest}: skips a class whose computers or databases cannot run here, starts its
 * server once, fills its {@link Injected} fields, resolves {@code TestServer} and {@code HearthClient}
 * (admin) parameters, and closes the server right after the class's {@code @AfterAll} methods (before
 * JUnit deletes its {@code @TempDir}s; the class's store closes it too, should the class fail earlier).
 * Also the one place that asks whether computers and databases can run on this machine.
 */
public final class HearthServerExtension
        implements ExecutionCondition, TestInstancePostProcessor, ParameterResolver, AfterAllCallback {
    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(HearthServerExtension.class);
    private static final String NO_COMPUTERS = "computers need root and runsc: ";
    private static final String NO_DATABASES = "databases need PostgreSQL and pgbouncer: ";

    // Asked once per JVM, on first use: the answer does not change while the tests run.
    private static final class Computers {
        static final Optional<String> UNAVAILABLE = RunscRuntime.unavailableReason("runsc");
    }

    private static final class Databases {
        static final Optional<String> UNAVAILABLE = PostgresHost.probe().unavailableReason();
    }

    /** Why computers cannot run on this machine (not root, or no usable runsc); empty when they can. */
    public static Optional<String> computersUnavailable() {
        return Computers.UNAVAILABLE;
    }

    /** Why databases cannot run on this machine (no PostgreSQL or pgbouncer); empty when they can. */
    public static Optional<String> databasesUnavailable() {
        return Databases.UNAVAILABLE;
    }

    /** Aborts the calling test (it is reported as skipped) when computers cannot run here. */
    public static void assumeComputers() {
        Assumptions.assumeTrue(computersUnavailable().isEmpty(), () -> NO_COMPUTERS + computersUnavailable().get());
    }

    /** Aborts the calling test (it is reported as skipped) when databases cannot run here. */
    public static void assumeDatabases() {
        Assumptions.assumeTrue(databasesUnavailable().isEmpty(), () -> NO_DATABASES + databasesUnavailable().get());
    }

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (!(context.getElement().orElse(null) instanceof Class<?> type)) {
            return ConditionEvaluationResult.enabled("decided for the whole class");
        }
        var test = settings(type);
        if (test.computers() && computersUnavailable().isPresent()) {
            return ConditionEvaluationResult.disabled(NO_COMPUTERS + computersUnavailable().get());
        }
        if (test.databases() && databasesUnavailable().isPresent()) {
            return ConditionEvaluationResult.disabled(NO_DATABASES + databasesUnavailable().get());
        }
        return ConditionEvaluationResult.enabled("the server can start here");
    }

    @Override
    public void postProcessTestInstance(Object instance, ExtensionContext context) throws Exception {
        var server = server(context, instance);
        for (Field field : AnnotationSupport.findAnnotatedFields(instance.getClass(), Injected.class)) {
            if (Modifier.isStatic(field.getModifiers()) || Modifier.isFinal(field.getModifiers())) {
                throw new ExtensionConfigurationException(
                        "@Injected field " + field + " must be neither static nor final");
            }
            field.setAccessible(true);
            field.set(instance, value(field.getType(), server, field));
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        var server = context.getStore(NAMESPACE).get(TestServer.class, TestServer.class);
        if (server != null) {
            var unexpected = new TreeMap<>(server.restarts());
            List.of(settings(context.getRequiredTestClass()).restarts()).forEach(unexpected::remove);
            server.close();
            if (!unexpected.isEmpty()) {
                throw new AssertionError("computers were restarted that nobody stopped: " + unexpected);
            }
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        var type = parameter.getParameter().getType();
        return type == TestServer.class || type == HearthClient.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        var server = server(context, context.getTestInstance().orElse(null));
        return value(parameter.getParameter().getType(), server, parameter.getParameter());
    }

    private static Object value(Class<?> type, TestServer server, Object where) {
        if (type == TestServer.class) {
            return server;
        }
        if (type == HearthClient.class) {
            return server.admin();
        }
        throw new ExtensionConfigurationException(
                "cannot inject " + where + ": only TestServer and HearthClient (the admin)");
    }

    /** The class's server, started on first use in the store of the class, which closes it after the class. */
    private static TestServer server(ExtensionContext context, Object instance) {
        var classContext = context;
        while (!(classContext.getElement().orElse(null) instanceof Class<?>)) {
            classContext = classContext.getParent().orElseThrow();
        }
        Class<?> type = classContext.getRequiredTestClass();
        return classContext.getStore(NAMESPACE).getOrComputeIfAbsent(TestServer.class,
                k -> TestServer.start(config(type, instance)), TestServer.class);
    }

    @SuppressWarnings("unchecked")
    private static UnaryOperator<Config> config(Class<?> type, Object instance) {
        String name = settings(type).config();
        if (name.isEmpty()) {
            return c -> c;
        }
        Method method = ReflectionSupport.findMethod(type, name).orElseThrow(() -> new ExtensionConfigurationException(
                "@HearthServerTest(config = \"" + name + "\"): " + type.getName() + " has no method " + name + "()"));
        if (!UnaryOperator.class.isAssignableFrom(method.getReturnType())) {
            throw new ExtensionConfigurationException(method + " must return UnaryOperator<Config>");
        }
        boolean isStatic = Modifier.isStatic(method.getModifiers());
        if (!isStatic && instance == null) {
            throw new ExtensionConfigurationException(
                    method + " must be static: the server is asked for before the instance exists");
        }
        return (UnaryOperator<Config>) ReflectionSupport.invokeMethod(method, isStatic ? null : instance);
    }

    private static HearthServerTest settings(Class<?> type) {
        return AnnotationSupport.findAnnotation(type, HearthServerTest.class).orElseThrow(() ->
                new ExtensionConfigurationException(type.getName() + " has no @HearthServerTest"));
    }
}
