package dev.hearth.support;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test class with one real {@link TestServer} of its own: started when the class starts (before its
 * {@code @BeforeAll} methods) and closed when it ends (after its {@code @AfterAll} methods). The class
 * gets it in fields marked {@link Injected} or as a parameter of its constructor, {@code @BeforeAll},
 * {@code @BeforeEach} or test methods: {@code TestServer} for the server, {@code HearthClient} for its
 * first-start admin ({@link TestServer#admin()}). Tests that need further servers (restarts on another
 * data directory, a second server, a child process) still start those themselves.
 *
 * <pre>{@code
 * @HearthServerTest(config = "withOperations", computers = true)
 * class SomeTest {
 *     @Injected private TestServer server;
 *     @Injected private HearthClient admin;
 *
 *     static UnaryOperator<Config> withOperations() {
 *         return c -> c.withOperations(Duration.ofSeconds(2), TestKinds.all());
 *     }
 * }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(HearthServerExtension.class)
public @interface HearthServerTest {
    /**
     * The name of a method of the class (static, or not: the instance exists before the server starts;
     * no parameters) that returns a {@code UnaryOperator<Config>} applied to the server's configuration.
     * Empty: the defaults of {@link TestServer#start()}.
     */
    String config() default "";

    /** Skips the whole class where computers cannot run (not root, or no usable runsc). */
    boolean computers() default false;

    /** Skips the whole class where databases cannot run (no PostgreSQL or pgbouncer). */
    boolean databases() default false;

    /**
     * Names of computers the class restarts on purpose (it kills their main process). A restart of
     * any other computer fails the class: Hearth never restarts a computer nobody asked it to.
     */
    String[] restarts() default {};
}
