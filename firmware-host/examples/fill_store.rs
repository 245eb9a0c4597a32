//! Fills a data directory's store with rated games (`firmware_host::store::fill`), to measure
//! what a large file costs the server (`scripts/bench cache`): `fill_store DIR GAMES`.

use std::path::PathBuf;

use firmware_host::store::{Store, fill};

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let (Some(dir), Some(games)) = (args.next(), args.next()) else {
        anyhow::bail!("usage: fill_store DIR GAMES");
    };
    let dir = PathBuf::from(dir);
    let games: u64 = games.parse()?;
    let store = tokio::task::spawn_blocking(move || Store::open_blocking(&dir)).await??;
    fill::rated_games(&store, games)
        .await
        .map_err(anyhow::Error::msg)?;
    tokio::task::spawn_blocking(move || store.shutdown_blocking()).await?;
    println!("{games} games stored");
    Ok(())
}
