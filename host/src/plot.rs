//! PNG line plots of result time series (energy, tip displacement...) with `plotters`.
//!
//! Text is drawn with DejaVu Sans compiled into the binary (`assets/DejaVuSans.ttf`, Bitstream
//! Vera licence in `assets/DejaVuSans-LICENSE.txt`) through plotters' pure-Rust `ab_glyph`
//! path, so plots render the same on a fresh machine without system fonts or fontconfig.
//!
//! Data handling: a point with a NaN or infinite coordinate is a gap (the line stops and starts
//! again at the next finite point); an empty series still gets its legend entry; constant data
//! gets a padded range so it draws as a line in the middle of the frame. Only a plot with no
//! finite point at all is an error.

use plotters::coord::Shift;
use plotters::prelude::*;
use std::fs::File;
use std::io::BufWriter;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Pixel size (width, height) used by [`line_plot`].
pub const DEFAULT_SIZE: (u32, u32) = (1024, 640);

/// The font family name the embedded font is registered under.
const FONT: &str = "sans-serif";

/// One labelled curve of a line plot.
#[derive(Debug, Clone, Copy)]
pub struct Series<'a> {
    /// Legend text.
    pub label: &'a str,
    /// (x, y) points in drawing order; non-finite points are gaps.
    pub points: &'a [(f64, f64)],
}

/// Everything that can stop a plot from being written.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// No series has a single finite point, so there is no range to draw.
    #[error("{}: nothing to plot: none of the {series} series has a finite point", path.display())]
    NoData {
        /// The plot that was requested.
        path: PathBuf,
        /// Number of series given.
        series: usize,
    },
    /// The data span more than the largest `f64` (e.g. from -1e308 to 1e308).
    #[error("{}: the {axis} range {lo}..{hi} is too wide to draw", path.display())]
    RangeTooWide {
        /// The plot that was requested.
        path: PathBuf,
        /// "x" or "y".
        axis: &'static str,
        /// Smallest value.
        lo: f64,
        /// Largest value.
        hi: f64,
    },
    /// Width or height is zero.
    #[error("{}: image size {width}x{height} has no pixels", path.display())]
    EmptyImage {
        /// The plot that was requested.
        path: PathBuf,
        /// Requested width in pixels.
        width: u32,
        /// Requested height in pixels.
        height: u32,
    },
    /// The embedded font could not be loaded (a corrupted asset).
    #[error("the embedded plot font could not be loaded")]
    Font,
    /// plotters failed while drawing.
    #[error("{}: drawing failed: {message}", path.display())]
    Draw {
        /// The plot that was requested.
        path: PathBuf,
        /// plotters' description of the failure.
        message: String,
    },
    /// Creating or writing the PNG file failed.
    #[error("{}: cannot write: {source}", path.display())]
    Io {
        /// The file being written.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The PNG encoder failed.
    #[error("{}: PNG encoding failed: {source}", path.display())]
    Encode {
        /// The file being written.
        path: PathBuf,
        /// The encoder's error.
        source: png::EncodingError,
    },
}

/// Draws `series` as lines with a legend into a PNG of [`DEFAULT_SIZE`] at `path`.
pub fn line_plot(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
) -> Result<(), PlotError> {
    line_plot_sized(path, DEFAULT_SIZE, title, x_label, y_label, series)
}

/// As [`line_plot`], with an explicit `(width, height)` in pixels.
pub fn line_plot_sized(
    path: &Path,
    (width, height): (u32, u32),
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
) -> Result<(), PlotError> {
    if width == 0 || height == 0 {
        return Err(PlotError::EmptyImage {
            path: path.to_path_buf(),
            width,
            height,
        });
    }
    register_font()?;
    let finite = || {
        series
            .iter()
            .flat_map(|s| s.points.iter())
            .filter(|(x, y)| x.is_finite() && y.is_finite())
    };
    let (Some(x), Some(y)) = (bounds(finite().map(|p| p.0)), bounds(finite().map(|p| p.1))) else {
        return Err(PlotError::NoData {
            path: path.to_path_buf(),
            series: series.len(),
        });
    };
    let x_range = padded(path, "x", x, 0.0)?;
    let y_range = padded(path, "y", y, 0.05)?;

    let mut pixels = vec![0u8; width as usize * height as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut pixels, (width, height)).into_drawing_area();
        draw(&root, title, x_label, y_label, series, x_range, y_range)
            .and_then(|()| root.present())
            .map_err(|e| PlotError::Draw {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?;
    }
    write_png(path, width, height, &pixels)
}

/// An axis tick: plain up to 4 decimals where that shows the value, scientific otherwise (the
/// default writes every tick of a 1e-5-wide axis as "0.0").
fn tick_label(value: &f64) -> String {
    let size = value.abs();
    if size != 0.0 && !(1e-3..1e5).contains(&size) {
        return format!("{value:.2e}");
    }
    let plain = format!("{value:.4}");
    let trimmed = plain.trim_end_matches('0').trim_end_matches('.');
    match trimmed {
        "-0" => "0".into(),
        t => t.into(),
    }
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    x_range: Range<f64>,
    y_range: Range<f64>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(root)
        .caption(title, (FONT, 26))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(80)
        .build_cartesian_2d(x_range, y_range)?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .x_label_formatter(&tick_label)
        .y_label_formatter(&tick_label)
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 18))
        .draw()?;
    for (i, s) in series.iter().enumerate() {
        let colour = Palette99::pick(i).to_rgba();
        let style = ShapeStyle::from(colour).stroke_width(2);
        // Each run of finite points is its own polyline, so NaN makes a visible gap.
        for run in s.points.split(|(x, y)| !(x.is_finite() && y.is_finite())) {
            if let [point] = run {
                // A lone point between gaps has no segment to draw: mark it instead.
                chart.draw_series(std::iter::once(Circle::new(*point, 2, style.filled())))?;
            } else {
                chart.draw_series(LineSeries::new(run.iter().copied(), style))?;
            }
        }
        // The legend entry is attached to an empty series so empty data still has one.
        chart
            .draw_series(LineSeries::new(std::iter::empty(), style))?
            .label(s.label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], style));
    }
    if !series.is_empty() {
        chart
            .configure_series_labels()
            .label_font((FONT, 15))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()?;
    }
    Ok(())
}

/// (min, max) of the values, or `None` when there are none.
fn bounds(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    })
}

/// The drawing range: `margin` × span added on both sides; a zero span is widened around the
/// value (by 5 % of it, or by 1 at zero) because plotters cannot draw an empty range.
fn padded(
    path: &Path,
    axis: &'static str,
    (lo, hi): (f64, f64),
    margin: f64,
) -> Result<Range<f64>, PlotError> {
    let span = hi - lo;
    if !span.is_finite() {
        return Err(PlotError::RangeTooWide {
            path: path.to_path_buf(),
            axis,
            lo,
            hi,
        });
    }
    if span == 0.0 {
        let pad = if lo == 0.0 { 1.0 } else { 0.05 * lo.abs() };
        return Ok(lo - pad..hi + pad);
    }
    Ok(lo - margin * span..hi + margin * span)
}

/// Registers the embedded font once per process.
fn register_font() -> Result<(), PlotError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        let bytes: &'static [u8] = include_bytes!("../assets/DejaVuSans.ttf");
        plotters::style::register_font(FONT, FontStyle::Normal, bytes).is_ok()
    });
    ok.then_some(()).ok_or(PlotError::Font)
}

/// Writes 8-bit RGB pixels (row by row from the top) as a PNG file.
pub fn write_png(path: &Path, width: u32, height: u32, rgb: &[u8]) -> Result<(), PlotError> {
    let io = |source| PlotError::Io {
        path: path.to_path_buf(),
        source,
    };
    let encode = |source| PlotError::Encode {
        path: path.to_path_buf(),
        source,
    };
    let file = File::create(path).map_err(io)?;
    let mut encoder = png::Encoder::new(BufWriter::new(file), width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(encode)?;
    writer.write_image_data(rgb).map_err(encode)?;
    writer.finish().map_err(encode)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ferrodyn-plot-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    #[test]
    fn tick_labels_show_small_and_large_values() {
        let labels: Vec<String> = [0.0, 2.5, -0.125, 1e-5, -3.25e-7, 2.0e6, 1.0 / 3.0]
            .iter()
            .map(tick_label)
            .collect();
        assert_eq!(
            labels,
            ["0", "2.5", "-0.125", "1.00e-5", "-3.25e-7", "2.00e6", "0.3333"]
        );
    }

    #[test]
    fn constant_data_gets_a_padded_range() {
        let p = Path::new("x.png");
        assert_eq!(padded(p, "y", (2.0, 2.0), 0.05).unwrap(), 1.9..2.1);
        assert_eq!(padded(p, "y", (0.0, 0.0), 0.05).unwrap(), -1.0..1.0);
        assert_eq!(padded(p, "x", (0.0, 10.0), 0.0).unwrap(), 0.0..10.0);
        assert!(matches!(
            padded(p, "y", (-f64::MAX, f64::MAX), 0.05),
            Err(PlotError::RangeTooWide { .. })
        ));
    }

    #[test]
    fn no_finite_point_is_an_error_and_writes_nothing() {
        let path = scratch("nothing.png");
        let nan = [(f64::NAN, 1.0), (0.0, f64::INFINITY)];
        let series = [
            Series {
                label: "a",
                points: &[],
            },
            Series {
                label: "b",
                points: &nan,
            },
        ];
        let err = line_plot(&path, "t", "x", "y", &series).unwrap_err();
        assert!(matches!(err, PlotError::NoData { series: 2, .. }), "{err}");
        assert!(matches!(
            line_plot(&path, "t", "x", "y", &[]),
            Err(PlotError::NoData { series: 0, .. })
        ));
        assert!(!path.exists());
    }

    #[test]
    fn gaps_empty_series_and_constant_data_draw() {
        let path = scratch("robust.png");
        let gappy = [(0.0, 1.0), (1.0, f64::NAN), (2.0, 1.0), (3.0, 1.0)];
        let series = [
            Series {
                label: "gappy",
                points: &gappy,
            },
            Series {
                label: "empty",
                points: &[],
            },
        ];
        line_plot_sized(&path, (320, 200), "constant", "x", "y", &series).unwrap();
        assert!(std::fs::metadata(&path).unwrap().len() > 0);
        let err = line_plot_sized(&path, (0, 10), "t", "x", "y", &series).unwrap_err();
        assert!(matches!(err, PlotError::EmptyImage { width: 0, .. }), "{err}");
    }
}
