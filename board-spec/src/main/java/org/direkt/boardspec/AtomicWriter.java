// SPDX-License-Identifier: Apache-2.0
package org.direkt.boardspec;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/** Replaces a file so that readers see either the old or the new content, never a mix. */
public final class AtomicWriter {

    private static final Set<PosixFilePermission> NEW_FILE_PERMISSIONS = PosixFilePermissions.fromString("rw-r--r--");

    private AtomicWriter() {
    }

    /**
     * Writes {@code content} to a temporary file in the target's directory, forces it to disk, gives
     * it the target's POSIX permissions ({@code rw-r--r--} for a new file), and renames it over the
     * target with an atomic move. A symbolic link is followed: the file it points to is replaced. On
     * any failure the temporary file is deleted and the target is left as it was.
     *
     * @param target  the file to create or replace
     * @param content the new bytes
     * @throws IOException                     when writing fails
     * @throws AtomicMoveNotSupportedException when the file system cannot rename atomically
     */
    public static void write(Path target, byte[] content) throws IOException {
        Path file = target.toAbsolutePath();
        if (Files.isSymbolicLink(file)) {
            file = file.toRealPath();
        }
        Path dir = file.getParent();
        Path tmp = Files.createTempFile(dir, "." + file.getFileName() + ".", ".tmp");
        boolean moved = false;
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer buf = ByteBuffer.wrap(content);
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
                ch.force(true);
            }
            if (Files.getFileAttributeView(tmp, PosixFileAttributeView.class) != null) {
                Files.setPosixFilePermissions(tmp, Files.exists(file) ? Files.getPosixFilePermissions(file) : NEW_FILE_PERMISSIONS);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            moved = true;
        } finally {
            if (!moved) {
                Files.deleteIfExists(tmp);
            }
        }
        syncDirectory(dir);
    }

    /** Best effort: makes the rename durable where the platform allows opening a directory. */
    private static void syncDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // Not every platform lets a directory be opened or forced; the content is already on disk.
        }
    }
}
