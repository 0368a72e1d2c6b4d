//! `sandmle import --images`: a prepared MLE-bench image competition
//! (PNG files in `public/train/` and `public/test/`) becomes an image
//! environment, and a competition whose images are missing or not PNG is
//! refused with a clear error.

mod common;
use common::{json, sandmle};
use sandmle_core::{Environment, Pixels, encode_png};
use std::path::Path;

/// A 40-row competition: `id,has_cactus` in train.csv, an 6 x 4 RGB PNG per
/// row, split 30 / 10 into `train/` and `test/`.
fn stage(dir: &Path) {
    let public = dir.join("prepared/public");
    let private = dir.join("prepared/private");
    for d in [public.join("train"), public.join("test"), private.clone()] {
        std::fs::create_dir_all(d).unwrap();
    }
    let (mut train, mut test, mut answers, mut sample) = (
        String::from("id,has_cactus\n"),
        String::from("id\n"),
        String::from("id,has_cactus\n"),
        String::from("id,has_cactus\n"),
    );
    for i in 0..40u8 {
        let label = i % 2;
        let png =
            encode_png(&Pixels { width: 6, height: 4, channels: 3, data: vec![i * 3 + label * 100; 72] }).unwrap();
        let id = format!("c{i:02}");
        let split = if i < 30 { "train" } else { "test" };
        std::fs::write(public.join(split).join(format!("{id}.png")), png).unwrap();
        if i < 30 {
            train.push_str(&format!("{id},{label}\n"));
        } else {
            test.push_str(&format!("{id}\n"));
            answers.push_str(&format!("{id},{label}\n"));
            sample.push_str(&format!("{id},0.5\n"));
        }
    }
    std::fs::write(public.join("train.csv"), train).unwrap();
    std::fs::write(public.join("test.csv"), test).unwrap();
    std::fs::write(public.join("sample_submission.csv"), sample).unwrap();
    std::fs::write(public.join("description.md"), "# Cacti\n").unwrap();
    std::fs::write(private.join("answers.csv"), answers).unwrap();
}

fn import(dir: &Path, out: &Path) -> std::process::Output {
    let (c, o) = (dir.display().to_string(), out.display().to_string());
    sandmle(&["--json", "import", "--competition", &c, "--metric", "roc_auc", "--images", "train,test", "--out", &o])
}

#[test]
fn an_mlebench_image_competition_imports_with_its_images() {
    let tmp = tempfile::tempdir().unwrap();
    let (comp, out) = (tmp.path().join("cactus"), tmp.path().join("env"));
    stage(&comp);
    let done = import(&comp, &out);
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    let env = Environment::read(&out).unwrap();
    let spec = env.task().images.clone().unwrap();
    assert_eq!((spec.dir.as_str(), spec.suffix.as_str()), ("images", ".png"));
    assert_eq!((spec.width, spec.height, spec.channels), (Some(6), Some(4), Some(3)));
    assert_eq!(env.images.len(), 40);
    assert_eq!(env.task().modality, sandmle_core::Modality::Image);
    let original = std::fs::read(comp.join("prepared/public/test/c33.png")).unwrap();
    assert_eq!(std::fs::read(out.join("prepared/public/images/c33.png")).unwrap(), original, "bytes kept as they are");
}

#[test]
fn a_missing_or_unreadable_image_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let comp = tmp.path().join("cactus");
    stage(&comp);
    std::fs::remove_file(comp.join("prepared/public/train/c05.png")).unwrap();
    let out = import(&comp, &tmp.path().join("a"));
    assert_eq!(out.status.code(), Some(2));
    assert!(json(&out)["error"]["message"].as_str().unwrap().contains("c05.png"), "{}", json(&out));

    // A JPEG cut short (whatever its name says) and bytes that are no image.
    for (bytes, says, out) in [
        (&b"\xff\xd8\xff\xe0 a JPEG"[..], "not a readable JPEG", "b"),
        (&b"GIF89a"[..], "not a PNG, JPEG or TIFF", "c"),
    ] {
        std::fs::write(comp.join("prepared/public/train/c05.png"), bytes).unwrap();
        let done = import(&comp, &tmp.path().join(out));
        assert_eq!(done.status.code(), Some(2));
        let message = json(&done)["error"]["message"].as_str().unwrap().to_string();
        assert!(message.contains("c05.png") && message.contains(says), "{message}");
        assert!(!tmp.path().join(out).exists());
    }
}

/// A `description.md` (or a table, or an image) linked to a host file was
/// copied, contents and all, into what agents see.
#[test]
fn links_out_of_the_competition_are_refused_and_named() {
    let tmp = tempfile::tempdir().unwrap();
    let secret = tmp.path().join("host-secret.txt");
    std::fs::write(&secret, "HOST-SECRET").unwrap();
    for linked in ["description.md", "train/c00.png"] {
        let (comp, out) =
            (tmp.path().join(format!("comp-{}", linked.len())), tmp.path().join(format!("env-{}", linked.len())));
        stage(&comp);
        let file = comp.join("prepared/public").join(linked);
        std::fs::remove_file(&file).unwrap();
        std::os::unix::fs::symlink(&secret, &file).unwrap();
        let done = import(&comp, &out);
        assert_eq!(done.status.code(), Some(2), "{linked}: {}", String::from_utf8_lossy(&done.stdout));
        let v = json(&done);
        assert_eq!(v["error"]["kind"], "broken_environment", "{v}");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(message.contains("link out of the competition") && message.contains(linked), "{message}");
        assert!(!out.exists(), "nothing written");
    }
    // A link that stays inside the competition is followed.
    let comp = tmp.path().join("comp-inside");
    stage(&comp);
    let public = comp.join("prepared/public");
    std::fs::rename(public.join("description.md"), public.join("desc-real.md")).unwrap();
    std::os::unix::fs::symlink("desc-real.md", public.join("description.md")).unwrap();
    let done = import(&comp, &tmp.path().join("env-inside"));
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
}
