package dev.hearth.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Prints rows as a plain, left-aligned text table with a header line. */
final class Table {
    private final List<String> headers;
    private final List<List<String>> rows = new ArrayList<>();

    Table(String... headers) {
        this.headers = List.of(headers);
    }

    Table row(Object... cells) {
        rows.add(Arrays.stream(cells).map(c -> c == null ? "-" : String.valueOf(c)).toList());
        return this;
    }

    void print(PrintStream out) {
        int[] widths = new int[headers.size()];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = headers.get(i).length();
            for (var row : rows) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        line(out, headers, widths);
        rows.forEach(r -> line(out, r, widths));
    }

    private static void line(PrintStream out, List<String> cells, int[] widths) {
        var s = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            s.append(i == cells.size() - 1 ? cells.get(i) : String.format("%-" + (widths[i] + 2) + "s", cells.get(i)));
        }
        out.println(s.toString().stripTrailing());
    }
}
