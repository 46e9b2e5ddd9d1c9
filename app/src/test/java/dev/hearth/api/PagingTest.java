package dev.hearth.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.client.HearthClient;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestServer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

@HearthServerTest
class PagingTest {
    @Injected
    private TestServer server;

    @Test
    void pagesThrough250WorkspacesWithInsertsBetweenPages() {
        HearthClient user = server.emailUser("pager@example.com");
        var created = new ArrayList<String>();
        for (int i = 0; i < 250; i++) {
            created.add(user.create("/workspaces", Map.of("name", "p-" + i)).path("workspace").path("id").asText());
        }
        var seen = new ArrayList<String>();
        String cursor = null;
        int pages = 0;
        do {
            var page = user.get("/workspaces?limit=40" + (cursor == null ? "" : "&cursor=" + cursor));
            page.path("workspaces").forEach(w -> seen.add(w.path("id").asText()));
            cursor = page.path("next_cursor").isNull() ? null : page.path("next_cursor").asText();
            assertEquals(cursor != null, page.path("has_more").asBoolean());
            user.create("/workspaces", Map.of("name", "inserted-" + pages));
            pages++;
        } while (cursor != null);
        assertEquals(seen.size(), new HashSet<>(seen).size(), "no workspace appears twice");
        assertTrue(seen.containsAll(created), "every workspace that existed before paging is seen");
        assertEquals(sorted(seen), seen, "pages come in id (creation) order");
        assertTrue(pages >= 7);
    }

    @Test
    void defaultLimitIs50AndTheLastPageSaysSo() {
        HearthClient user = server.emailUser("fifty@example.com");
        for (int i = 0; i < 51; i++) {
            user.create("/workspaces", Map.of("name", "f-" + i));
        }
        var first = user.get("/workspaces");
        assertEquals(50, first.path("workspaces").size());
        assertTrue(first.path("has_more").asBoolean());
        var last = user.get("/workspaces?cursor=" + first.path("next_cursor").asText());
        assertEquals(1, last.path("workspaces").size());
        assertFalse(last.path("has_more").asBoolean());
        assertTrue(last.path("next_cursor").isNull());
    }

    private static List<String> sorted(List<String> ids) {
        var copy = new ArrayList<>(ids);
        copy.sort(null);
        return copy;
    }
}
