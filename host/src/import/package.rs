//! Mesh file names of robot models: `package://NAME/path` looked up in the search path
//! (`--package-path` folders, then the model's folder and its ancestors), `file://` URLs,
//! and paths relative to the model's folder.

use std::path::{Path, PathBuf};

/// Where `filename` (as written in the model at `model`) lies, or why it was not found.
pub fn resolve(filename: &str, model: &Path, search: &[PathBuf]) -> Result<PathBuf, String> {
    let folder = model.parent().unwrap_or(Path::new("."));
    if let Some(rest) = filename.strip_prefix("package://") {
        let (package, inner) = rest.split_once('/').unwrap_or((rest, ""));
        let ancestors: Vec<&Path> = folder.ancestors().filter(|p| !p.as_os_str().is_empty()).collect();
        let roots = search
            .iter()
            .map(PathBuf::as_path)
            .chain(ancestors.iter().copied());
        for root in roots {
            // The package as a folder inside the root, or the root being the package.
            let inside = root.join(package).join(inner);
            if !package.is_empty() && inside.is_file() {
                return Ok(inside);
            }
            if root.file_name().is_some_and(|n| n == package) && root.join(inner).is_file() {
                return Ok(root.join(inner));
            }
        }
        return Err(format!(
            "package \"{package}\" not found for {filename} (searched --package-path and the folders above {}); give --package-path",
            folder.display()
        ));
    }
    let path = match filename.strip_prefix("file://") {
        Some(p) => PathBuf::from(p),
        None => folder.join(filename),
    };
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!("mesh file {} does not exist", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packages_are_found_above_the_model_and_in_the_search_path() {
        let root = std::env::temp_dir().join(format!("ferrodyn-package-{}", std::process::id()));
        let meshes = root.join("robots/arm_description/meshes");
        std::fs::create_dir_all(&meshes).unwrap();
        std::fs::create_dir_all(root.join("robots/arm_description/urdf")).unwrap();
        std::fs::write(meshes.join("a.stl"), "solid").unwrap();
        let model = root.join("robots/arm_description/urdf/arm.urdf");
        // The package is an ancestor folder of the model.
        let found = resolve("package://arm_description/meshes/a.stl", &model, &[]).unwrap();
        assert_eq!(found, meshes.join("a.stl"));
        // A package holding the whole tree, found inside the search path.
        let elsewhere = Path::new("/nonexistent/x.urdf");
        let search = [root.parent().unwrap().to_path_buf()];
        let name = root.file_name().unwrap().to_string_lossy();
        let url = format!("package://{name}/robots/arm_description/meshes/a.stl");
        assert_eq!(resolve(&url, elsewhere, &search).unwrap(), meshes.join("a.stl"));
        // Relative to the model's folder.
        assert_eq!(
            resolve("../meshes/a.stl", &model, &[]).unwrap(),
            model.parent().unwrap().join("../meshes/a.stl")
        );
        let missing = resolve("package://nothing/a.stl", &model, &[]).unwrap_err();
        assert!(missing.contains("package \"nothing\" not found"), "{missing}");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
