package dev.hearth.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.api.Json;
import dev.hearth.bench.ProbeCases.Auth;
import dev.hearth.bench.ProbeCases.Probe;
import dev.hearth.bench.RawHttp.Answer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The fuzz's judge: what an operation of the document promises, and what it does not. */
class DocumentedTest {
    private static final String DOC = """
            {"paths": {"/things/{id}": {"delete": {"responses": {
                "200": {"description": "success"},
                "404": {"$ref": "#/components/responses/not_found"},
                "409": {"$ref": "#/components/responses/conflict"}}}}},
             "components": {"responses": {
                "not_found": {"content": {"application/json": {"schema": {"properties": {"error": {"properties": {"code": {"enum": ["not_found"]}}}}}}}},
                "conflict": {"content": {"application/json": {"schema": {"properties": {"error": {"properties": {"code": {"enum": ["conflict"]}}}}}}}}}}}
            """;

    private static Optional<String> judge(String target, int status, String code) throws Exception {
        var documented = new Documented(Json.mapper().readTree(DOC));
        var probe = new Probe("case", "DELETE", "/things/{id}", target, Auth.ADMIN, List.of(), null);
        String body = code == null ? "{\"ok\": true}" : "{\"error\": {\"code\": \"" + code + "\"}}";
        return documented.problem(probe, new Answer(status, Map.of(), body.getBytes(StandardCharsets.UTF_8), 0));
    }

    @Test
    void aDocumentedStatusAndCodePass() throws Exception {
        assertEquals(Optional.empty(), judge("/v1/things/abc", 200, null));
        assertEquals(Optional.empty(), judge("/v1/things/abc", 404, "not_found"));
    }

    @Test
    void aCodeTheResponseDoesNotListOrAStatusItDoesNotHaveIsFlagged() throws Exception {
        assertTrue(judge("/v1/things/abc", 409, "protected").orElseThrow().contains("not documented"));
        assertTrue(judge("/v1/things/abc", 403, "forbidden").orElseThrow().contains("not among"));
    }

    @Test
    void aCodeWithAnotherStatusThanItsOwnIsFlaggedEverywhere() throws Exception {
        assertTrue(judge("/v1/things/abc", 400, "not_found").orElseThrow().contains("documented 404"));
        assertTrue(judge("/v1/things/..", 414, "invalid_request").orElseThrow().contains("documented 400"));
    }

    @Test
    void aPathThatNamesNoOperationMayOnlyBeAClientError() throws Exception {
        assertEquals(Optional.empty(), judge("/v1/things/..", 400, "invalid_request"));
        assertTrue(judge("/v1/things/%2e%2e", 200, null).orElseThrow().contains("names no operation"));
    }
}
