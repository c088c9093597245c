// SPDX-License-Identifier: Apache-2.0
package org.direkt.boardspec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The XML rules a board_spec.xml is held to before any board rule: every way a document can be
 * malformed is refused with its own message at the line and column where it goes wrong, and the
 * forms XML allows (references, comments, processing instructions, CDATA, a DOCTYPE, a byte order
 * mark, characters outside the BMP) are accepted and read as XML defines them.
 */
class XmlWellFormednessTest {

    private static final String B = "<board name=\"b\">";

    static Stream<Arguments> malformed() {
        return Stream.of(
                Arguments.of("<board name=\"b\"/>\n<board name=\"c\"/>", "2:1: only one root element is allowed; <board> ended at 1:18"),
                Arguments.of("<board name=\"b\"/>\ntext", "2:1: text is not allowed after the end of the root element"),
                Arguments.of("text<board name=\"b\"/>", "1:1: text is not allowed before the root element"),
                Arguments.of("< board/>", "1:1: '<' not followed by an element name"),
                Arguments.of(B + "</ board>", "1:19: '</' not followed by an element name"),
                Arguments.of(B + "</board", "1:24: unexpected end of file inside the end tag </board>"),
                Arguments.of(B + "</board x>", "1:25: end tag </board> is not closed with '>'"),
                Arguments.of(B + "<!-- open", "1:17: comment is not closed with '-->'"),
                Arguments.of(B + "<![CDATA[ x", "1:17: CDATA section is not closed with ']]>'"),
                Arguments.of(B + "<!ENTITY x>", "1:17: markup declaration '<!' is not allowed inside an element"),
                Arguments.of(B + "< x/></board>", "1:17: '<' not followed by an element name"),
                Arguments.of(B + "a]]>b</board>", "1:18: ']]>' is not allowed in text outside a CDATA section"),
                Arguments.of("<board name=\"b\"/ >", "1:16: '/' in the start tag <board> must be followed by '>'"),
                Arguments.of("<board name=\"b\" =\"c\"/>", "1:17: unexpected character '=' in the start tag <board>"),
                Arguments.of("<board name=\"b\"x=\"c\"/>", "1:16: attributes in the start tag <board> must be separated by whitespace"),
                Arguments.of("<board name=\"b\" name=\"c\"/>", "1:17: attribute name appears twice in <board>"),
                Arguments.of("<board name/>", "1:12: attribute name of <board> has no '=' and value"),
                Arguments.of("<board name", "1:12: attribute name of <board> has no '=' and value"),
                Arguments.of("<board name=b/>", "1:13: the value of attribute name of <board> must be quoted"),
                Arguments.of("<board name=", "1:13: the value of attribute name of <board> must be quoted"),
                Arguments.of("<board name=\"b/>", "1:13: the value of attribute name of <board> is not closed with \""),
                Arguments.of("<board name=\"a<b\"/>", "1:15: '<' is not allowed in the value of attribute name of <board>"),
                Arguments.of("<board name=\"a&b\"/>", "1:15: '&' must start an entity reference such as &amp;"),
                Arguments.of("<board name=\"&" + "x".repeat(40) + ";\"/>", "1:14: '&' must start an entity reference such as &amp;"),
                Arguments.of("<board name=\"&#xZZ;\"/>", "1:14: malformed character reference &#xZZ;"),
                Arguments.of("<board name=\"&#1;\"/>", "1:14: character reference &#1; is not a legal XML character"),
                Arguments.of("<board name=\"&#31;\"/>", "1:14: character reference &#31; is not a legal XML character"),
                Arguments.of("<board name=\"&#xD800;\"/>", "1:14: character reference &#xD800; is not a legal XML character"),
                Arguments.of("<board name=\"&#xFFFE;\"/>", "1:14: character reference &#xFFFE; is not a legal XML character"),
                Arguments.of("<board name=\"&#x110000;\"/>", "1:14: character reference &#x110000; is not a legal XML character"),
                Arguments.of("<board name=\"&foo;\"/>", "1:14: undefined entity &foo;"),
                Arguments.of("<board name=\"&1;\"/>", "1:14: '&' must start an entity reference such as &amp;"),
                Arguments.of("<board name=\"&;\"/>", "1:14: '&' must start an entity reference such as &amp;"),
                Arguments.of(B + "a & b</board>", "1:19: '&' must start an entity reference such as &amp;"),
                Arguments.of("<board name=\"b\"/><?xml version=\"1.0\"?>", "1:18: the XML declaration is only allowed at the very start of the file"),
                Arguments.of(B + "<?xml version=\"1.0\"?></board>", "1:17: the XML declaration is only allowed at the very start of the file"),
                Arguments.of("<board name=\"b\"/><?pi ", "1:18: processing instruction is not closed with '?>'"),
                Arguments.of("<!DOCTYPE board><!DOCTYPE board><board name=\"b\"/>", "1:17: a DOCTYPE is only allowed once, before the root element"),
                Arguments.of("<board name=\"b\"/><!DOCTYPE board>", "1:18: a DOCTYPE is only allowed once, before the root element"),
                Arguments.of("<!DOCTYPE board [ <!ENTITY x \"y\"> ", "1:1: DOCTYPE is not closed with '>'"),
                Arguments.of("<!DOCTYPE board SYSTEM \"b.dtd>", "1:1: DOCTYPE is not closed with '>'"),
                Arguments.of("<board name=\"b\"", "1:16: unexpected end of file inside the start tag <board> opened at 1:1"),
                Arguments.of("<board name=\"b\"/>\u0001", "1:18: character U+0001 is not allowed in an XML document"),
                Arguments.of("<board name=\"\u001F\"/>", "1:14: character U+001F is not allowed in an XML document"),
                Arguments.of("<board name=\"\uD800\"/>", "1:14: character U+D800 is not allowed in an XML document"),
                Arguments.of("<board name=\"\uDC00\"/>", "1:14: character U+DC00 is not allowed in an XML document"),
                Arguments.of("<board name=\"\uFFFE\"/>", "1:14: character U+FFFE is not allowed in an XML document"),
                Arguments.of("<board name=\"b\"/>\uD800", "1:18: character U+D800 is not allowed in an XML document"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("malformed")
    void malformedDocumentsAreRefusedWhereTheyGoWrong(String text, String expected) {
        assertEquals("t.xml:" + expected, assertThrows(BoardSpecException.class, () -> BoardSpec.parse(text, "t.xml")).getMessage());
    }

    private static String name(String text) throws BoardSpecException {
        return BoardSpec.parse(text, "t.xml").name();
    }

    @Test
    void referencesInAttributeValuesAreReplaced() throws BoardSpecException {
        assertEquals("a&b<c>\"d'", name("<board name=\"a&amp;b&lt;c&gt;&quot;d&apos;\"/>"));
        assertEquals("AB\t", name("<board name=\"&#65;&#x42;&#9;\"/>"));
        assertEquals(" \uD7FF\uE000\uFFFD" + new String(Character.toChars(0x10000)) + new String(Character.toChars(0x10FFFF)),
                name("<board name=\"&#32;&#xD7FF;&#xE000;&#xFFFD;&#x10000;&#x10FFFF;\"/>"));
        assertEquals("a\nb\rc", name("<board name=\"a&#xA;b&#xD;c\"/>"), "references keep the characters that literal line breaks lose");
        assertEquals("b", name("<board name='b'/>"), "single quotes");
        assertEquals("say \"hi\"", name("<board name='say \"hi\"'/>"));
    }

    @Test
    void whitespaceInAttributeValuesBecomesSpaces() throws BoardSpecException {
        assertEquals("a b c d", name("<board name=\"a\tb\nc\r\nd\"/>"));
        assertEquals("a b", name("<board name=\"a\rb\"/>"));
        assertEquals("b", name("<board\n\tname\r\n=\n\"b\"\n/>"));
    }

    @Test
    void markupXmlAllowsIsSkipped() throws BoardSpecException {
        String text = "\uFEFF<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + "<!-- a board -->\n"
                + "<?tool data?>\n"
                + "<!DOCTYPE board [ <!ENTITY x \"]>\"> <!ATTLIST board name CDATA '>'> ]>\n"
                + "<board name=\"b\">\n"
                + "  text &amp; more, <!-- inside --> <?pi inside?> <![CDATA[ <not> & a tag ]]>\n"
                + "  <interfaces>\n"
                + "    <interface name=\"board\" port=\"kernel_cra\" type=\"host\" width=\"64\"/>\n"
                + "  </interfaces >\n"
                + "</board>\n"
                + "<!-- after -->\n";
        BoardSpec spec = BoardSpec.parse(text, "t.xml");
        assertEquals("b", spec.name());
        assertEquals(1, spec.interfaces().size());
        assertEquals("kernel_cra", spec.interfaces().getFirst().port());
        assertEquals("b", name("<?xml?><board name=\"b\"/>"), "a declaration closed at once");
        assertEquals("t.xml:1:21: the XML declaration is only allowed at the very start of the file",
                assertThrows(BoardSpecException.class, () -> BoardSpec.parse("<?xml-stylesheet x?><?xml version=\"1.0\"?><board name=\"b\"/>", "t.xml"))
                        .getMessage(), "a processing instruction whose target starts with xml is not the declaration");
    }

    @Test
    void namesMayUseEveryNameCharacter() throws BoardSpecException {
        BoardSpec spec = BoardSpec.parse("<board name=\"b\" x:y_z-1.2=\"v\" \u00E9t\u00E9=\"w\"><_a.b-c:d/></board>", "t.xml");
        assertEquals("b", spec.name());
        assertEquals(new String(Character.toChars(0x1F600)), name("<board name=\"\uD83D\uDE00\"/>"));
    }
}
