// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.kernel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

import org.direkt.overlay.OverlayException;

/**
 * The channels of an OpenCL C kernel, as the compiler sees them after preprocessing: what it
 * declares, where it reads and writes them, and the types that give them their widths. Positions
 * are in the original files (see {@link PpToken}).
 *
 * @param sourceName   the kernel's file name used in messages
 * @param declarations channel declarations in the order the compiler reads them (one per
 *                     declarator)
 * @param uses         channel calls in that order
 * @param types        the typedefs, structs, unions and enums declared
 * @param files        the files read, the kernel first, then each header as it is first included
 * @param problems     what reading found wrong: preprocessor errors ({@code #error}, malformed
 *                     directives, unterminated literals and comments), malformed channel declarations
 *                     and calls, channel forms that are not supported; and {@code #warning}s
 */
public record KernelChannels(String sourceName, List<ChannelDecl> declarations, List<ChannelUse> uses,
                             KernelTypes types, List<String> files, List<LintMessage> problems) {

    /** Copies the lists. */
    public KernelChannels {
        Objects.requireNonNull(sourceName, "sourceName");
        Objects.requireNonNull(types, "types");
        declarations = List.copyOf(declarations);
        uses = List.copyOf(uses);
        files = List.copyOf(files);
        problems = List.copyOf(problems);
    }

    /** Channels of one file with no types of its own and nothing wrong. */
    public KernelChannels(String sourceName, List<ChannelDecl> declarations, List<ChannelUse> uses) {
        this(sourceName, declarations, uses, KernelTypes.none(), List.of(sourceName), List.of());
    }

    /**
     * Reads a kernel as the offline compiler does: preprocessed with the options' predefined macros,
     * {@code -D} definitions and include folders. What is wrong in it is in {@link #problems()}.
     *
     * @throws IOException      when the kernel cannot be read
     * @throws OverlayException ({@link OverlayException.Kind#INPUT}) for a header found in no include
     *                          folder, or a malformed {@code -D}
     */
    public static KernelChannels read(Path kernel, KernelPreprocessor.Options options) throws IOException, OverlayException {
        return of(KernelPreprocessor.file(kernel, options), kernel.toString());
    }

    /**
     * Finds the channel declarations and channel calls of one file alone: its macros are expanded and
     * its {@code #if}s taken (with OpenCL C's predefined macros), its {@code #include} lines skipped.
     *
     * @param text       OpenCL C source
     * @param sourceName the file name used in messages
     * @throws KernelSyntaxException for the first error reading finds: a malformed channel declaration or
     *         call, an {@code io} attribute without a string literal, a second io attribute, an unterminated
     *         comment, string or character, an {@code #error}
     */
    public static KernelChannels parse(String text, String sourceName) {
        KernelChannels k;
        try {
            k = of(KernelPreprocessor.text(text, sourceName, KernelPreprocessor.Options.fileAlone()), sourceName);
        } catch (OverlayException e) {
            throw new IllegalStateException("a file alone includes nothing", e);
        }
        k.problems().stream().filter(LintMessage::isError)
                .min(Comparator.comparingInt(LintMessage::line).thenComparingInt(LintMessage::col))
                .ifPresent(m -> {
                    throw new KernelSyntaxException(m.source(), m.line(), m.col(), m.message());
                });
        return k;
    }

    /**
     * Reads and parses one file alone (see {@link #parse(String, String)}); the file name in messages is
     * {@code file.toString()}. A file that is not UTF-8 is read as ISO-8859-1.
     *
     * @throws IOException           if the file cannot be read
     * @throws KernelSyntaxException for malformed input
     */
    public static KernelChannels parseFile(Path file) throws IOException {
        return parse(KernelPreprocessor.decode(Files.readAllBytes(file)), file.toString());
    }

    private static KernelChannels of(KernelPreprocessor.Output pp, String sourceName) {
        KernelParser.Parsed p = KernelParser.parse(pp.tokens());
        List<LintMessage> problems = new java.util.ArrayList<>(pp.problems());
        problems.addAll(p.problems());
        return new KernelChannels(sourceName, p.declarations(), p.uses(), p.types(), pp.files(), problems);
    }

    /** The declaration of channel {@code name}, or {@code null}. */
    public ChannelDecl declaration(String name) {
        return declarations.stream().filter(d -> d.name().equals(name)).findFirst().orElse(null);
    }

    /** The uses of channel {@code name}. */
    public List<ChannelUse> usesOf(String name) {
        return uses.stream().filter(u -> u.channel().equals(name)).toList();
    }
}
