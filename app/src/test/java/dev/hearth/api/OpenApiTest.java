package dev.hearth.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.support.ContractCheck;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.Repository;
import dev.hearth.support.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The OpenAPI document: served without a token, complete, and the same as the copy in docs/. */
@HearthServerTest
class OpenApiTest {
    @Injected
    private TestServer server;

    @Test
    void everyRouteIsInTheDocumentWithWhatItTakesAndAnswers() {
        JsonNode doc = server.anonymous().get("/openapi.json");
        assertEquals("3.1.0", doc.path("openapi").asText());
        var missing = new ArrayList<String>();
        for (var route : server.server().routes().routes()) {
            var op = doc.path("paths").path(route.template()).path(route.method().toLowerCase(Locale.ROOT));
            if (op.isMissingNode() || op.path("summary").asText().isEmpty() || op.path("responses").isEmpty()) {
                missing.add(route.method() + " " + route.template());
            }
        }
        assertEquals(new ArrayList<String>(), missing, "routes the document lacks or does not describe");
        var computer = doc.path("components").path("schemas").path("Computer");
        assertTrue(computer.path("properties").has("auto_sleep_seconds"), computer.toString());
        assertTrue(computer.path("properties").has("protected"), "@JsonProperty names are used");
        var create = doc.path("paths").path("/workspaces/{ws}/computers").path("post");
        assertTrue(create.path("parameters").toString().contains("Idempotency-Key"));
        assertEquals("#/components/schemas/CreateComputer", create.path("requestBody").path("content")
                .path("application/json").path("schema").path("$ref").asText());
        assertTrue(create.path("responses").has("202"), "a create that pulls answers 202");
        assertTrue(create.path("responses").path("404").path("$ref").asText().contains("not_found"));
        assertEquals(0, doc.path("paths").path("/health").path("get").path("security").size(),
                "public routes need no token");
    }

    /** What a client generated from the document gets: every field typed, the required ones required, plain names. */
    @Test
    void everyFieldIsTypedAndRequiredOnesAreRequired() {
        JsonNode doc = server.anonymous().get("/openapi.json");
        var untyped = new ArrayList<String>();
        untyped(doc, "", untyped);
        assertEquals(List.of(), untyped, "schemas that say nothing of their values");
        var schemas = doc.path("components").path("schemas");
        var javaNames = new ArrayList<String>();
        schemas.fieldNames().forEachRemaining(name -> {
            if (name.matches(".*(Api(?!Key)|View|Service).*")) {
                javaNames.add(name);
            }
        });
        assertEquals(List.of(), javaNames, "component names that are Java's, not the API's");
        assertEquals("[\"command\"]", schemas.path("Exec").path("required").toString());
        assertEquals("[\"name\"]", schemas.path("CreateComputer").path("required").toString());
        assertEquals("[\"name\",\"value\"]", schemas.path("CreateVariable").path("required").toString());
        var env = schemas.path("CreateComputer").path("properties").path("env").toString();
        assertTrue(env.contains("SecretRef") && env.contains("additionalProperties"), env);
        var unnamed = server.admin().send("POST", "/workspaces", Map.of(), Map.of("Idempotency-Key", "k" + System.nanoTime()));
        assertEquals(400, unnamed.status(), unnamed.body().toString());
        assertEquals("required", unnamed.body().path("error").path("details").path("fields").path("name").asText(),
                unnamed.body().toString());
    }

    private static void untyped(JsonNode node, String at, List<String> found) {
        if (node.isObject() && node.isEmpty() && !at.endsWith("/example")) {
            found.add(at);
        }
        if (node.isObject() && !at.endsWith("/example")) {
            node.properties().forEach(e -> untyped(e.getValue(), at + "/" + e.getKey(), found));
        }
        for (int i = 0; node.isArray() && i < node.size(); i++) {
            untyped(node.get(i), at + "/" + i, found);
        }
    }

    @Test
    void everyExampleFitsItsSchema() {
        JsonNode doc = server.anonymous().get("/openapi.json");
        int examples = 0;
        for (var path : doc.path("paths").properties()) {
            for (var op : path.getValue().properties()) {
                var media = op.getValue().path("requestBody").path("content").path("application/json");
                if (media.has("example")) {
                    var errors = ContractCheck.schema(doc, media.path("schema")).validate(media.path("example"));
                    assertEquals(List.of(), errors.stream().map(Object::toString).toList(), op.getKey() + " " + path.getKey());
                    examples++;
                }
            }
        }
        assertTrue(examples >= 8, "the creates show an example: " + examples);
    }

    @Test
    void theCopyInDocsIsCurrent() throws Exception {
        Path root = Repository.root();
        String served = Json.mapper().writerWithDefaultPrettyPrinter()
                .writeValueAsString(server.anonymous().get("/openapi.json")) + "\n";
        Path made = root.resolve("app/target/openapi.json");
        Files.writeString(made, served);
        Path copy = root.resolve("docs/openapi.json");
        assertTrue(Files.exists(copy) && Files.readString(copy).equals(served),
                "docs/openapi.json is out of date: cp app/target/openapi.json docs/openapi.json");
    }

    @Test
    void anAnswerThatDoesNotFitIsCaughtAndOneThatFitsIsNot() {
        var check = new ContractCheck();
        check.attach(() -> server.server().routes().routes());
        check.answered("GET", "/workspaces/{ws}", 200, "{\"workspace\":{\"id\":5},\"operations\":[]}".getBytes());
        check.answered("GET", "/computers/{cmp}", 418, "{}".getBytes());
        var failure = assertThrows(AssertionError.class, check::verify);
        assertTrue(failure.getMessage().contains("GET /workspaces/{ws} 200"), failure.getMessage());
        assertTrue(failure.getMessage().contains("GET /computers/{cmp} 418"), failure.getMessage());

        var fits = new ContractCheck();
        fits.attach(() -> server.server().routes().routes());
        var answer = server.admin().send("GET", "/workspaces/nope", null, Map.of());
        fits.answered("GET", "/workspaces/{ws}", answer.status(), answer.body().toString().getBytes());
        fits.answered("GET", "/me", 200, server.admin().get("/me").toString().getBytes());
        fits.verify();
    }
}
