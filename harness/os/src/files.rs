//! Files as the journal, the merge and the ledger use them, per system.

use std::fs::File;
use std::path::Path;

/// Read into `buf` from `file` at byte `offset`: the bytes read (fewer at the file's end), the
/// cursor as [`read_exact_at`] says.
pub fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_at(file, buf, offset)
    }
    #[cfg(windows)]
    {
        std::os::windows::fs::FileExt::seek_read(file, buf, offset)
    }
}

/// Fill `buf` from `file` at byte `offset`, without moving a cursor another reader shares
/// (Unix `pread`; Windows `ReadFile` at an offset, which moves the handle's cursor: callers
/// read a file through positional reads only).
pub fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(buf, offset)
    }
    #[cfg(windows)]
    {
        let (mut done, mut at) = (0, offset);
        while done < buf.len() {
            match read_at(file, &mut buf[done..], at)? {
                0 => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        "the file ends before the record",
                    ))
                }
                n => {
                    done += n;
                    at += n as u64;
                }
            }
        }
        Ok(())
    }
}

/// Make a rename into `folder` durable: on Unix the folder itself is synced, so that the new
/// name survives a power cut. Windows cannot open a folder to sync it; its rename
/// (`MoveFileEx` with replace) is journaled by NTFS but may be lost with the last second's
/// metadata on a power cut: nothing more is done there.
pub fn sync_folder(folder: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        File::open(folder)?.sync_all()
    }
    #[cfg(windows)]
    {
        let _ = folder;
        Ok(())
    }
}

/// The bytes free to an unprivileged user on the file system holding `path` (`statvfs` on
/// Unix). `None` on Windows, where `GetDiskFreeSpaceEx` is not asked yet: the caller's
/// check of room before a run is then skipped.
pub fn free_space(path: &Path) -> std::io::Result<Option<u64>> {
    #[cfg(unix)]
    {
        let stat = rustix::fs::statvfs(path)?;
        Ok(Some(stat.f_bavail.saturating_mul(stat.f_frsize)))
    }
    #[cfg(windows)]
    {
        let _ = path;
        Ok(None)
    }
}

/// Whether the file `meta` describes may be read only by its owner (no bit for its group or
/// others), as libpq demands of the password file on Unix. `None` on Windows, whose access
/// lists libpq does not check either: the file is used.
pub fn private_to_owner(meta: &std::fs::Metadata) -> Option<bool> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        Some(meta.permissions().mode() & 0o077 == 0)
    }
    #[cfg(windows)]
    {
        let _ = meta;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_positional_read_reads_where_it_is_told_and_says_when_the_file_ends() {
        let path = std::env::temp_dir().join(format!("os-read-at-{}", std::process::id()));
        std::fs::write(&path, b"0123456789").unwrap();
        let file = File::open(&path).unwrap();
        let mut buf = [0u8; 4];
        read_exact_at(&file, &mut buf, 3).unwrap();
        assert_eq!(&buf, b"3456");
        read_exact_at(&file, &mut buf, 0).unwrap();
        assert_eq!(&buf, b"0123");
        let short = read_exact_at(&file, &mut buf, 8).unwrap_err();
        assert_eq!(short.kind(), std::io::ErrorKind::UnexpectedEof);
        sync_folder(&std::env::temp_dir()).unwrap();
        std::fs::remove_file(&path).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_file_others_can_read_is_not_private() {
        use std::os::unix::fs::PermissionsExt;
        let path = std::env::temp_dir().join(format!("os-private-{}", std::process::id()));
        std::fs::write(&path, b"secret").unwrap();
        for (mode, private) in [(0o600, true), (0o640, false), (0o604, false)] {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
            let meta = std::fs::metadata(&path).unwrap();
            assert_eq!(private_to_owner(&meta), Some(private), "{mode:o}");
        }
        std::fs::remove_file(&path).unwrap();
    }
}
