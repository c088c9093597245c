// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.direkt.boardspec.AtomicWriter;
import org.direkt.generators.bridge.Manifest;

/**
 * Puts a {@link Overlay.Plan} on disk so that a failure leaves everything as it was.
 *
 * <ul>
 * <li>{@code --out DIR}: the whole overlay is staged in a sibling directory and renamed into place;
 *     an existing DIR is replaced only if it is an earlier direkt overlay (it holds the manifest).</li>
 * <li>{@code --in-place}: the overlay files go to {@code <board dir>/direkt/} and the board's
 *     board_spec.xml is replaced atomically; the original board_spec.xml and the list of created
 *     files are kept in {@code <board dir>/.direkt-backup/}, from which {@link #revert} restores the
 *     BSP byte for byte. A second in-place run keeps the first backup.</li>
 * </ul>
 */
public final class OverlayWriter {
    private OverlayWriter() {
    }

    public static final String IN_PLACE_DIR = "direkt";
    public static final String BACKUP_DIR = ".direkt-backup";
    private static final String BACKUP_SPEC = "board_spec.xml";
    private static final String BACKUP_LIST = "created-files.txt";
    /** The BSP files an in-place overlay changes (or whose integration script will change), kept here byte for byte. */
    private static final String BACKUP_FILES = "files";
    private static final String RESTORE_LIST = "restored-files.txt";

    /** What a write changed: files written (relative to their root) and whether anything differed. */
    public record Result(Path root, List<String> written, List<String> unchanged) {
    }

    public static Result writeOut(Overlay.Plan plan, Path out) throws OverlayException {
        Path target = out.toAbsolutePath().normalize();
        Path parent = target.getParent();
        if (Files.exists(target) && !Files.isDirectory(target)) {
            throw new OverlayException(OverlayException.Kind.WRITE, out + ": exists and is not a directory");
        }
        if (Files.isDirectory(target) && !isEmpty(target) && !Files.isRegularFile(target.resolve(Manifest.FILE_NAME))) {
            throw new OverlayException(OverlayException.Kind.WRITE, out + ": exists, is not empty and is not a direkt overlay"
                    + " (no " + Manifest.FILE_NAME + "); choose another --out");
        }
        List<String> written = new ArrayList<>();
        List<String> unchanged = new ArrayList<>();
        for (var e : plan.files().entrySet()) {
            Path old = target.resolve(e.getKey());
            try {
                if (Files.isRegularFile(old) && Arrays.equals(Files.readAllBytes(old), e.getValue())) {
                    unchanged.add(e.getKey());
                    continue;
                }
            } catch (IOException ignored) {
                // unreadable: it will be replaced
            }
            written.add(e.getKey());
        }
        if (written.isEmpty() && sameFileSet(target, plan.files())) {
            return new Result(target, written, unchanged); // already up to date: leave every file as it is
        }
        Path stage = null;
        Path previous = null;
        try {
            if (Files.exists(parent) && !Files.isDirectory(parent)) {
                throw new OverlayException(OverlayException.Kind.WRITE, "cannot write " + out + ": " + parent
                        + " is not a directory (nothing was changed)");
            }
            Files.createDirectories(parent);
            stage = Files.createTempDirectory(parent, "." + target.getFileName() + ".direkt-stage-");
            writeTree(stage, plan.files());
            if (Files.exists(target)) {
                previous = parent.resolve("." + target.getFileName() + ".direkt-old-" + ProcessHandle.current().pid());
                move(target, previous);
            }
            try {
                move(stage, target);
            } catch (IOException e) {
                if (previous != null) {
                    move(previous, target);
                    previous = null;
                }
                throw e;
            }
            stage = null;
            if (previous != null) {
                deleteTree(previous);
            }
        } catch (IOException e) {
            throw new OverlayException(OverlayException.Kind.WRITE, "cannot write " + out + ": " + describe(e)
                    + " (nothing was changed)", e);
        } finally {
            if (stage != null) {
                try {
                    deleteTree(stage);
                } catch (IOException ignored) {
                    // best effort: a leftover hidden staging directory is harmless
                }
            }
        }
        return new Result(target, written, unchanged);
    }

    public static Result writeInPlace(Overlay.Plan plan) throws OverlayException {
        Path boardDir = plan.boardSpecPath().getParent();
        Path backup = boardDir.resolve(BACKUP_DIR);
        if (Files.exists(boardDir.resolve(plan.inPlaceDir())) && !Files.exists(backup)) {
            throw new OverlayException(OverlayException.Kind.WRITE, boardDir.resolve(plan.inPlaceDir()) + ": exists but was not made by"
                    + " direkt overlay --in-place (no " + BACKUP_DIR + "); move it away first");
        }
        Map<String, byte[]> files = new java.util.LinkedHashMap<>(plan.files());
        byte[] spec = files.remove(Overlay.BOARD_SPEC);
        // the BSP's own files the overlay edits (the kernel wrapper chain) go back into the board directory
        Map<String, byte[]> bspFiles = new java.util.LinkedHashMap<>();
        for (String k : List.copyOf(files.keySet())) {
            if (k.startsWith(Overlay.BOARD_EDITS)) {
                bspFiles.put(k.substring(Overlay.BOARD_EDITS.length()), files.remove(k));
            }
        }
        Path overlayDir = boardDir.resolve(plan.inPlaceDir());
        try {
            if (!Files.exists(backup)) {
                Path tmp = Files.createTempDirectory(boardDir, "." + BACKUP_DIR + "-");
                Files.write(tmp.resolve(BACKUP_SPEC), plan.boardSpecBefore());
                List<String> restore = new ArrayList<>();
                for (String rel : plan.keptForRevert()) {
                    Path f = boardDir.resolve(rel);
                    if (Files.isRegularFile(f)) {
                        Path b = tmp.resolve(BACKUP_FILES).resolve(rel);
                        Files.createDirectories(b.getParent());
                        Files.copy(f, b);
                        restore.add(rel);
                    }
                }
                Files.writeString(tmp.resolve(RESTORE_LIST), String.join("", restore.stream().map(r -> r + "\n").toList()),
                        StandardCharsets.UTF_8);
                List<String> created = new ArrayList<>();
                created.add(plan.inPlaceDir() + "/");
                created.addAll(plan.createdByScript());
                Files.writeString(tmp.resolve(BACKUP_LIST), String.join("", created.stream().map(r -> r + "\n").toList()),
                        StandardCharsets.UTF_8);
                move(tmp, backup);
            }
            Result r = writeOut(plan.withFiles(files), overlayDir);
            List<String> written = new ArrayList<>();
            r.written().forEach(f -> written.add(plan.inPlaceDir() + "/" + f));
            List<String> unchanged = new ArrayList<>();
            r.unchanged().forEach(f -> unchanged.add(plan.inPlaceDir() + "/" + f));
            for (var e : bspFiles.entrySet()) {
                Path f = boardDir.resolve(e.getKey());
                if (Arrays.equals(Files.readAllBytes(f), e.getValue())) {
                    unchanged.add(e.getKey());
                } else {
                    AtomicWriter.write(f, e.getValue());
                    written.add(e.getKey());
                }
            }
            if (Arrays.equals(Files.readAllBytes(plan.boardSpecPath()), spec)) {
                unchanged.add(Overlay.BOARD_SPEC);
            } else {
                AtomicWriter.write(plan.boardSpecPath(), spec);
                written.add(Overlay.BOARD_SPEC);
            }
            return new Result(boardDir, written, unchanged);
        } catch (IOException e) {
            throw new OverlayException(OverlayException.Kind.WRITE, "cannot write into " + boardDir + ": " + describe(e), e);
        }
    }

    /** Restores a BSP changed by {@link #writeInPlace}: board_spec.xml byte for byte, created files removed. */
    public static List<String> revert(Path given) throws OverlayException {
        Path boardDir = given.toAbsolutePath().normalize();
        Path backup = boardDir.resolve(BACKUP_DIR);
        if (!Files.isRegularFile(backup.resolve(BACKUP_SPEC))) {
            throw new OverlayException(OverlayException.Kind.INPUT, boardDir + ": no direkt backup (" + BACKUP_DIR
                    + "/) here: nothing to revert");
        }
        List<String> done = new ArrayList<>();
        try {
            // Check everything first: a revert either happens whole or changes nothing.
            byte[] original = Files.readAllBytes(backup.resolve(BACKUP_SPEC));
            List<Path> created = new ArrayList<>();
            for (String line : Files.readAllLines(backup.resolve(BACKUP_LIST), StandardCharsets.UTF_8)) {
                if (line.isBlank()) {
                    continue;
                }
                Path p = boardDir.resolve(line.strip()).normalize();
                if (!p.startsWith(boardDir) || p.equals(boardDir)) {
                    throw new OverlayException(OverlayException.Kind.INPUT, backup.resolve(BACKUP_LIST) + ": lists " + line.strip()
                            + ", which is not inside " + boardDir + "; nothing was changed");
                }
                created.add(p);
            }
            Map<String, byte[]> restore = new java.util.LinkedHashMap<>();
            Path restoreList = backup.resolve(RESTORE_LIST);
            if (Files.isRegularFile(restoreList)) {
                for (String line : Files.readAllLines(restoreList, StandardCharsets.UTF_8)) {
                    if (line.isBlank()) {
                        continue;
                    }
                    Path p = boardDir.resolve(line.strip()).normalize();
                    Path saved = backup.resolve(BACKUP_FILES).resolve(line.strip()).normalize();
                    if (!p.startsWith(boardDir) || !saved.startsWith(backup.resolve(BACKUP_FILES)) || !Files.isRegularFile(saved)) {
                        throw new OverlayException(OverlayException.Kind.INPUT, restoreList + ": lists " + line.strip()
                                + ", which is not inside " + boardDir + " or has no saved copy; nothing was changed");
                    }
                    restore.put(line.strip(), Files.readAllBytes(saved));
                }
            }
            AtomicWriter.write(boardDir.resolve("board_spec.xml"), original);
            done.add("restored board_spec.xml");
            for (var e : restore.entrySet()) {
                Path f = boardDir.resolve(e.getKey());
                if (!Files.isRegularFile(f) || !Arrays.equals(Files.readAllBytes(f), e.getValue())) {
                    AtomicWriter.write(f, e.getValue());
                    done.add("restored " + e.getKey());
                }
            }
            for (Path p : created) {
                if (Files.exists(p)) {
                    deleteTree(p);
                    done.add("removed " + boardDir.relativize(p));
                }
            }
            deleteTree(backup);
        } catch (IOException e) {
            throw new OverlayException(OverlayException.Kind.WRITE, "cannot revert " + boardDir + ": " + describe(e), e);
        }
        return done;
    }

    /** True when {@code root} holds exactly the planned files (no leftovers of another configuration). */
    private static boolean sameFileSet(Path root, Map<String, byte[]> files) {
        if (!Files.isDirectory(root)) {
            return false;
        }
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(Files::isRegularFile).map(p -> root.relativize(p).toString().replace('\\', '/'))
                    .collect(java.util.stream.Collectors.toSet()).equals(files.keySet());
        } catch (IOException e) {
            return false;
        }
    }

    private static void writeTree(Path root, Map<String, byte[]> files) throws IOException {
        for (var e : files.entrySet()) {
            Path f = root.resolve(e.getKey());
            Files.createDirectories(f.getParent());
            Files.write(f, e.getValue());
        }
    }

    /**
     * Writes one file whole or not at all: into a temporary file beside {@code target}, then moved
     * over it, so a failed write leaves the old file (or none), never half of the new one.
     */
    public static void writeFile(Path target, byte[] bytes) throws IOException {
        Path at = target.toAbsolutePath();
        Path part = Files.createTempFile(at.getParent(), "." + at.getFileName(), ".part");
        try {
            Files.write(part, bytes);
            try {
                Files.move(part, at, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(part, at, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(part);
        }
    }

    private static void move(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to);
        }
    }

    private static boolean isEmpty(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.findAny().isEmpty();
        } catch (IOException e) {
            return false;
        }
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
                Files.delete(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static String describe(IOException e) {
        String kind = e.getClass().getSimpleName().replace("Exception", "");
        return (e instanceof java.nio.file.AccessDeniedException ? "permission denied" : kind.isEmpty() ? "I/O error" : kind)
                + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }
}
