package dev.hearth.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The shape of the server's packages, checked on the compiled classes: no two packages import each
 * other in a loop, the error model and the HTTP layer sit below the features, and nothing but the
 * composition root and the CLI reaches the root package.
 */
@Tag("unit")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PackagesTest {
    private JavaClasses classes;

    @BeforeAll
    void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.hearth");
    }

    @Test
    void serverPackagesHaveNoImportLoops() {
        slices().matching("dev.hearth.server.(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void theApiPackageKnowsNothingOfTheServerOrTheClient() {
        noClasses().that().resideInAPackage("dev.hearth.api..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.hearth.server..", "dev.hearth.client..",
                        "dev.hearth.cli..")
                .check(classes);
    }

    @Test
    void httpOnlyTranslatesAndCallsNoFeature() {
        noClasses().that().resideInAPackage("dev.hearth.server.http..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.hearth.server.access..",
                        "dev.hearth.server.auth..", "dev.hearth.server.workspaces..", "dev.hearth.server.computers..",
                        "dev.hearth.server.databases..", "dev.hearth.server.variables..",
                        "dev.hearth.server.invitations..", "dev.hearth.server.images..",
                        "dev.hearth.server.operations..", "dev.hearth.server.checkpoints..")
                .check(classes);
    }

    @Test
    void theStoreKnowsNoFeatureAndNoHttp() {
        noClasses().that().resideInAPackage("dev.hearth.server.store..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.hearth.server.http..",
                        "dev.hearth.server.computers..", "dev.hearth.server.databases..")
                .check(classes);
    }

    @Test
    void onlyTheCompositionRootAndTheCliUseTheRootPackage() {
        noClasses().that().resideOutsideOfPackages("dev.hearth.server", "dev.hearth.cli..", "dev.hearth")
                .should().dependOnClassesThat().resideInAPackage("dev.hearth.server")
                .check(classes);
    }

    @Test
    void theDriversDoNotKnowTheRules() {
        noClasses().that().resideInAnyPackage("dev.hearth.server.sandbox..", "dev.hearth.server.agent..",
                        "dev.hearth.server.postgres..",
                        "dev.hearth.server.pgwire..", "dev.hearth.server.process..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.hearth.server.computers..",
                        "dev.hearth.server.databases..", "dev.hearth.server.http..")
                .check(classes);
    }
}
