//! MP4 recording: raw RGB frames piped to an `ffmpeg` child process (H.264, yuv420p).

use super::raster::Image;
use anyhow::{bail, Context, Result};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};

/// Frames per second of recorded videos.
pub const FPS: u32 = 60;

/// An `ffmpeg` process encoding the frames it is given into an MP4 file.
pub struct Mp4Recorder {
    child: Child,
    stdin: Option<ChildStdin>,
    path: PathBuf,
    width: usize,
    height: usize,
    frames: u64,
}

impl Mp4Recorder {
    /// Starts `ffmpeg` writing `path` from `width`×`height` frames (both even: yuv420p halves
    /// the chroma resolution) at [`FPS`].
    pub fn start(path: &Path, width: usize, height: usize) -> Result<Self> {
        if width % 2 != 0 || height % 2 != 0 || width == 0 || height == 0 {
            bail!("video size {width}x{height}: width and height must be even and > 0");
        }
        let child = Command::new("ffmpeg")
            .args(["-hide_banner", "-loglevel", "error", "-nostats", "-y"])
            .args([
                "-f",
                "rawvideo",
                "-pix_fmt",
                "rgb24",
                "-s",
                &format!("{width}x{height}"),
            ])
            .args(["-r", &FPS.to_string(), "-i", "-"])
            .args(["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p"])
            .arg(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn();
        let mut child = match child {
            Ok(child) => child,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
                "recording {} needs ffmpeg, which is not on PATH (install it, e.g. `apt-get install ffmpeg`)",
                path.display()
            ),
            Err(e) => return Err(e).context("starting ffmpeg"),
        };
        Ok(Self {
            stdin: child.stdin.take(),
            child,
            path: path.to_path_buf(),
            width,
            height,
            frames: 0,
        })
    }

    /// Appends a frame (must have the size the recording started with).
    pub fn push(&mut self, img: &Image) -> Result<()> {
        if (img.width, img.height) != (self.width, self.height) {
            bail!(
                "frame {}x{} does not match the video size {}x{}",
                img.width,
                img.height,
                self.width,
                self.height
            );
        }
        let Some(stdin) = self.stdin.as_mut() else {
            bail!("the recording of {} has ended", self.path.display());
        };
        if let Err(e) = stdin.write_all(&img.to_rgb()) {
            // ffmpeg quit: its own message says why.
            self.stdin = None;
            let reason = self.stderr();
            bail!(
                "ffmpeg stopped while writing {}: {e}; {reason}",
                self.path.display()
            );
        }
        self.frames += 1;
        Ok(())
    }

    /// Frames written so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Closes the stream and waits for ffmpeg to finish the file.
    pub fn finish(mut self) -> Result<PathBuf> {
        drop(self.stdin.take());
        let status = self.child.wait().context("waiting for ffmpeg")?;
        if !status.success() {
            let reason = self.stderr();
            bail!(
                "ffmpeg failed writing {} ({status}): {reason}",
                self.path.display()
            );
        }
        Ok(self.path.clone())
    }

    fn stderr(&mut self) -> String {
        let mut text = String::new();
        if let Some(mut err) = self.child.stderr.take() {
            let _ = err.read_to_string(&mut text);
        }
        text.trim().to_string()
    }
}

impl Drop for Mp4Recorder {
    fn drop(&mut self) {
        // An abandoned recording must not leave ffmpeg waiting on its input.
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}
