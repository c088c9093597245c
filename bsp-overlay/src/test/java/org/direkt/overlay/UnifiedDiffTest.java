// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

/**
 * What {@code --dry-run} shows: the hunks GNU {@code diff -u} prints for the same two texts (three
 * lines of context, hunks joined when at most six unchanged lines lie between changes), with the
 * line count always written out and a replaced line shown as its new text, then its old one
 * (an order {@code patch} applies as it does GNU's).
 */
class UnifiedDiffTest {

    /** Lines "1".."n", each ended by a newline, with line {@code k} replaced where given. */
    private static String numbered(int n, String... replacements) {
        String text = IntStream.rangeClosed(1, n).mapToObj(i -> i + "\n").collect(Collectors.joining());
        for (int i = 0; i < replacements.length; i += 2) {
            text = ("\n" + text).replace("\n" + replacements[i] + "\n", "\n" + replacements[i + 1] + "\n").substring(1);
        }
        return text;
    }

    private static String diff(String a, String b) {
        return UnifiedDiff.diff("f", a, "f", b);
    }

    @Test
    void equalTextsHaveNoDiff() {
        assertEquals("", diff("a\nb\n", "a\nb\n"));
    }

    @Test
    void aMissingFinalNewlineIsAChangeMarkedAsGnuDiffMarksIt() {
        assertEquals("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n+b\n-b\n\\ No newline at end of file\n", diff("a\nb", "a\nb\n"));
        assertEquals("--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n+b\n\\ No newline at end of file\n-b\n", diff("b\n", "b"));
        assertEquals("", diff("a\nb", "a\nb"));
    }

    @Test
    void aRemovedFileGoesToDevNull() {
        assertEquals("--- a/x.v\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n", UnifiedDiff.diff("x.v", "x\ny\n", "x.v", null));
    }

    @Test
    void aNewFileIsAddedFromDevNull() {
        assertEquals("--- /dev/null\n+++ b/x.v\n@@ -0,0 +1,2 @@\n+x\n+y\n", UnifiedDiff.diff("x.v", null, "x.v", "x\ny\n"));
    }

    @Test
    void aRemovedTextLeavesAnEmptyHunk() {
        assertEquals("--- a/f\n+++ b/f\n@@ -1,2 +0,0 @@\n-x\n-y\n", diff("x\ny\n", ""));
    }

    @Test
    void oneChangeHasThreeLinesOfContext() {
        assertEquals("--- a/f\n+++ b/f\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n+five\n-5\n 6\n 7\n 8\n",
                diff(numbered(10), numbered(10, "5", "five")));
    }

    @Test
    void changesNearTheEdgesHaveLessContext() {
        assertEquals("--- a/f\n+++ b/f\n@@ -1,4 +1,3 @@\n-1\n 2\n 3\n 4\n@@ -6,3 +5,4 @@\n 6\n 7\n 8\n+9\n",
                diff("1\n2\n3\n4\n5\n6\n7\n8\n", "2\n3\n4\n5\n6\n7\n8\n9\n"));
    }

    @Test
    void changesSixLinesApartShareAHunk() {
        assertEquals("--- a/f\n+++ b/f\n@@ -2,14 +2,14 @@\n 2\n 3\n 4\n+five\n-5\n 6\n 7\n 8\n 9\n 10\n 11\n+twelve\n-12\n 13\n 14\n 15\n",
                diff(numbered(20), numbered(20, "5", "five", "12", "twelve")));
        assertEquals("--- a/f\n+++ b/f\n@@ -2,13 +2,13 @@\n 2\n 3\n 4\n+five\n-5\n 6\n 7\n 8\n 9\n 10\n+eleven\n-11\n 12\n 13\n 14\n",
                diff(numbered(20), numbered(20, "5", "five", "11", "eleven")));
    }

    @Test
    void changesSevenLinesApartGetTheirOwnHunks() {
        assertEquals("--- a/f\n+++ b/f\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n+five\n-5\n 6\n 7\n 8\n@@ -10,7 +10,7 @@\n 10\n 11\n 12\n+thirteen\n-13\n 14\n 15\n 16\n",
                diff(numbered(20), numbered(20, "5", "five", "13", "thirteen")));
        assertEquals("--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n 1\n+two\n-2\n 3\n 4\n 5\n@@ -12,7 +12,7 @@\n 12\n 13\n 14\n+fifteen\n-15\n 16\n 17\n 18\n",
                diff(numbered(20), numbered(20, "2", "two", "15", "fifteen")));
    }
}
