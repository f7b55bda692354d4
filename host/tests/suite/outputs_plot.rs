//! PNG line plots: the file decodes, has the requested size, and holds drawing and text.

use crate::common;

use ferrodyn_host::plot::{line_plot, line_plot_sized, Series, DEFAULT_SIZE};
use std::collections::HashSet;
use std::path::Path;

/// Decodes an 8-bit RGB PNG: (width, height, pixels).
fn decode(path: &Path) -> (u32, u32, Vec<[u8; 3]>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(
        (info.color_type, info.bit_depth),
        (png::ColorType::Rgb, png::BitDepth::Eight)
    );
    let pixels = buf[..info.buffer_size()]
        .chunks(3)
        .map(|c| [c[0], c[1], c[2]])
        .collect();
    (info.width, info.height, pixels)
}

/// A sampled curve.
type Curve = Vec<(f64, f64)>;

/// Pendulum-like energies: kinetic and potential exchange, their sum is constant.
fn energies() -> (Curve, Curve) {
    let t = (0..=400).map(|i| f64::from(i) * 0.025);
    let kinetic = t.clone().map(|t| (t, 5.0 * (2.0 * t).sin().powi(2))).collect();
    let potential = t.map(|t| (t, 5.0 * (2.0 * t).cos().powi(2))).collect();
    (kinetic, potential)
}

#[test]
fn two_series_plot_has_the_requested_size_lines_and_text() {
    let (kinetic, potential) = energies();
    let series = [
        Series {
            label: "kinetic",
            points: &kinetic,
        },
        Series {
            label: "potential",
            points: &potential,
        },
    ];
    let dir = common::scratch_dir("outputs", "plot");
    let path = dir.join("energy.png");
    line_plot_sized(
        &path,
        (800, 500),
        "Energy exchange",
        "time t [s]",
        "energy [J]",
        &series,
    )
    .unwrap();
    println!("plot written to {}", path.display());

    let (width, height, pixels) = decode(&path);
    assert_eq!((width, height), (800, 500));
    let colours: HashSet<[u8; 3]> = pixels.iter().copied().collect();
    assert!(colours.len() > 2, "only {} colours: a blank image", colours.len());
    // The two series are drawn in distinct saturated colours (not grey: grid, text, frame).
    let saturated = |c: &[u8; 3]| c.iter().max().unwrap() - c.iter().min().unwrap() > 100;
    assert!(
        colours.iter().filter(|c| saturated(c)).count() >= 2,
        "no coloured lines"
    );
    // The caption is drawn above the plot frame: dark pixels in the top band mean text rendered.
    let top_band = &pixels[..(width * 40) as usize];
    let dark = top_band.iter().filter(|c| c.iter().all(|&v| v < 100)).count();
    assert!(dark > 50, "no caption text in the top band ({dark} dark pixels)");
}

#[test]
fn default_size_and_constant_data_with_gaps() {
    let constant: Vec<(f64, f64)> = (0..10).map(|i| (f64::from(i), 3.0)).collect();
    let mut gappy = constant.clone();
    gappy[4].1 = f64::NAN;
    let series = [
        Series {
            label: "constant",
            points: &constant,
        },
        Series {
            label: "gap",
            points: &gappy,
        },
    ];
    let path = common::scratch_dir("outputs", "plot-default").join("constant.png");
    line_plot(&path, "Constant", "x", "y", &series).unwrap();
    let (width, height, pixels) = decode(&path);
    assert_eq!((width, height), DEFAULT_SIZE);
    assert!(pixels.iter().any(|c| c != &pixels[0]));
}
