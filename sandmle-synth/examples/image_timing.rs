//! Rendering speed of the image synthesizer: 600 images of 32 x 32 RGB
//! drawn on one thread (factors, polygon fills, blur, noise, PNG
//! encoding), 15 rounds, median printed.
//!
//! ```text
//! cargo run --release -p sandmle-synth --example image_timing [-- --sheet sheet.png]
//! ```
//!
//! With `--sheet PATH` it also writes the first 64 images as one 8 x 8
//! contact sheet, to look at.

use sandmle_core::{Pixels, encode_png, rng_for};
use sandmle_synth::image::{Canvas, ImageFactors, Nuisance, render, render_png};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let canvas = Canvas { width: 32, height: 32, channels: 3 };
    let nuisance = Nuisance::for_difficulty(0.5);
    let mut rng = rng_for(1, "image-factors");
    let factors: Vec<ImageFactors> = (0..600).map(|_| ImageFactors::draw(&mut rng, &nuisance, 60)).collect();
    let mut per_100 = Vec::new();
    let mut bytes = 0;
    for _ in 0..15 {
        let start = Instant::now();
        bytes = 0;
        for (r, f) in factors.iter().enumerate() {
            bytes += render_png(f, &canvas, &mut rng_for(1, &format!("image-{r}")))?.len();
        }
        per_100.push(start.elapsed().as_secs_f64() * 1000.0 / 6.0);
    }
    per_100.sort_by(f64::total_cmp);
    println!(
        "600 images of 32x32 RGB, one thread: median {:.2} ms per 100 images ({:.1} us per image; min {:.2}, max {:.2} ms per 100), {} bytes",
        per_100[per_100.len() / 2],
        per_100[per_100.len() / 2] * 10.0,
        per_100[0],
        per_100[per_100.len() - 1],
        bytes
    );
    let args: Vec<String> = std::env::args().collect();
    if let Some(path) = args.iter().position(|a| a == "--sheet").and_then(|i| args.get(i + 1)) {
        let (cells, side) = (8usize, 32usize);
        let width = cells * side;
        let mut sheet = vec![0u8; width * width * 3];
        for (i, f) in factors.iter().take(cells * cells).enumerate() {
            let px = render(f, &canvas, &mut rng_for(1, &format!("image-{i}")))?;
            let (ox, oy) = ((i % cells) * side, (i / cells) * side);
            for y in 0..side {
                let row = &px.data[y * side * 3..(y + 1) * side * 3];
                let at = ((oy + y) * width + ox) * 3;
                sheet[at..at + side * 3].copy_from_slice(row);
            }
        }
        let png = encode_png(&Pixels { width: width as u32, height: width as u32, channels: 3, data: sheet })?;
        std::fs::write(path, png)?;
        println!("wrote {path}");
    }
    Ok(())
}
