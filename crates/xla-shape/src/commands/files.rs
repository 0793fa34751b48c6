//! Files the commands write with `--output`: a regular file whole or not
//! at all; a FIFO, a device or a symbolic link's target where it is.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` where `path` points. A symbolic link is followed (the
/// link stays, its target is written). A regular file, or a path where
/// nothing is yet, is written atomically ([`write_atomically`]); anything
/// else (a FIFO, a device such as `/dev/stdout` or `/dev/full`) is opened
/// and written in place, since renaming over it would replace the node
/// with a regular file. Every write error is returned.
pub fn write_output(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let target = link_target(path)?;
    match std::fs::metadata(&target) {
        Ok(meta) if !meta.is_file() && !meta.is_dir() => {
            let mut file = OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(&target)?;
            file.write_all(bytes)?;
            file.flush()
        }
        Ok(meta) if meta.is_file() => {
            check_writable(&target, &meta)?;
            write_atomically(&target, bytes, Some(meta.permissions()))
        }
        _ => write_atomically(&target, bytes, None),
    }
}

/// Refuses to replace a file the user may not write: one with no write
/// permission for anyone (`0444`: read-only on purpose, refused even to
/// root), or one the system does not let this user open for writing.
fn check_writable(path: &Path, meta: &std::fs::Metadata) -> std::io::Result<()> {
    let refused = |why: &str| {
        Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!("{why}, not replaced"),
        ))
    };
    if meta.permissions().readonly() {
        return refused("a read-only file");
    }
    match OpenOptions::new().write(true).open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            refused("a file this user may not write")
        }
        Err(e) => Err(e),
    }
}

/// The path a symbolic link at `path` leads to (links followed one after
/// another, relative ones from their own directory), else `path` itself.
fn link_target(path: &Path) -> std::io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    // As the system does, give up after 40 links (a loop).
    for _ in 0..40 {
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let next = std::fs::read_link(&current)?;
                current = match current.parent() {
                    Some(parent) if next.is_relative() => parent.join(next),
                    _ => next,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(std::io::Error::other(format!(
        "too many levels of symbolic links at {}",
        path.display()
    )))
}

/// Writes `bytes` to a temporary file beside `path`, then renames it over
/// `path`: a failure leaves `path` as it was, and no temporary file behind.
/// The new file has `permissions` (those of the file it replaces: a private
/// file stays private), else those `File::create` gives.
fn write_atomically(
    path: &Path,
    bytes: &[u8],
    permissions: Option<std::fs::Permissions>,
) -> std::io::Result<()> {
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // A new file as `File::create` makes it: readable and writable by
        // all, less the umask (a temporary file is otherwise private). A
        // replaced file's own read, write and execute bits (no set-id
        // bits), from the start and, past the umask, exactly.
        let mode = permissions.as_ref().map_or(0o666, |p| p.mode() & 0o777);
        builder.permissions(std::fs::Permissions::from_mode(mode));
        let file = builder.tempfile_in(directory)?;
        if permissions.is_some() {
            file.as_file()
                .set_permissions(std::fs::Permissions::from_mode(mode))?;
        }
        finish(file, path, bytes)
    }
    #[cfg(not(unix))]
    {
        let file = builder.tempfile_in(directory)?;
        if let Some(permissions) = permissions {
            file.as_file().set_permissions(permissions)?;
        }
        finish(file, path, bytes)
    }
}

/// Writes `bytes` to the temporary `file`, then renames it over `path`.
fn finish(mut file: tempfile::NamedTempFile, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    file.write_all(bytes)?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn regular_files_are_replaced_and_links_kept() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target.bin");
        std::fs::write(&target, b"old contents").unwrap();
        write_output(&target, b"new").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        #[cfg(unix)]
        {
            let link = dir.path().join("link.bin");
            std::os::unix::fs::symlink("target.bin", &link).unwrap();
            write_output(&link, b"through the link").unwrap();
            assert!(
                std::fs::symlink_metadata(&link)
                    .unwrap()
                    .file_type()
                    .is_symlink()
            );
            assert_eq!(std::fs::read(&target).unwrap(), b"through the link");
            // A link to nothing yet: the target is created.
            let dangling = dir.path().join("dangling");
            std::os::unix::fs::symlink("new.bin", &dangling).unwrap();
            write_output(&dangling, b"x").unwrap();
            assert_eq!(std::fs::read(dir.path().join("new.bin")).unwrap(), b"x");
            // A loop is an error.
            let a = dir.path().join("a");
            std::os::unix::fs::symlink("b", &a).unwrap();
            std::os::unix::fs::symlink("a", dir.path().join("b")).unwrap();
            let error = write_output(&a, b"x").unwrap_err();
            assert!(
                error
                    .to_string()
                    .starts_with("too many levels of symbolic links"),
                "{error}"
            );
        }
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_full_device_is_an_error_and_stays_a_device() {
        use std::os::unix::fs::FileTypeExt;

        let error = write_output(Path::new("/dev/full"), &[0; 4096]).unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::StorageFull);
        let meta = std::fs::metadata("/dev/full").unwrap();
        assert!(meta.file_type().is_char_device());
        // Writing nothing to it succeeds, as `File::write_all` does.
        write_output(Path::new("/dev/null"), b"").unwrap();
    }
}
