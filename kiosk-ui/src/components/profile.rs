//! A player's profile (E5): username, both ratings, points, win/draw/loss per game and recent
//! games with their replay; the arena events they played with their place (EV5); their puzzles (PZ3, PZ5): puzzle rating, solved / tried and best
//! streak per game, and recent puzzles with their replay; on one's own profile, the password change (the current
//! password is required, and every other session of the account ends).

use engine::Game;
use protocol::records::{FinishedGame, PlayerRef};
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::api::{self, ApiError, LadderView, Profile, ProfileSeason};
use crate::credentials::{api_error_text, valid_password};
use crate::i18n::{Lang, T};
use crate::room_model::{change_class, player_name, signed};
use crate::route::Route;

use super::context::use_ctx;
use super::link::Link;
use super::navbar::Navbar;
use super::owner::date;
use super::owner_account::DeleteAccountBox;

#[derive(Debug, Properties, PartialEq)]
pub struct ProfileProps {
    pub name: String,
}

/// The reader's outcome in a finished game, as seen by player `user`.
fn outcome(game: &FinishedGame, user: u64) -> T {
    let mine = |p: &PlayerRef| matches!(p, PlayerRef::User { id, .. } if *id == user);
    let me = if mine(&game.x) {
        engine::Mark::X
    } else {
        engine::Mark::O
    };
    match game.end.winner() {
        None => T::OutcomeDraw,
        Some(w) if w == me => T::OutcomeWin,
        Some(_) => T::OutcomeLoss,
    }
}

fn ladder(lang: Lang, game: Game, l: &LadderView) -> Html {
    html! {
        <section class="panel ladder" data-game={game.as_str()}>
            <h2>{ lang.game(game) }</h2>
            <p class="big-rating">{ lang.f(T::RatingValue, &[&lang.num(l.rating)]) }</p>
            <dl class="stats">
                <dt>{ lang.t(T::Wins) }</dt><dd>{ lang.num(l.wins) }</dd>
                <dt>{ lang.t(T::Draws) }</dt><dd>{ lang.num(l.draws) }</dd>
                <dt>{ lang.t(T::Losses) }</dt><dd>{ lang.num(l.losses) }</dd>
                <dt>{ lang.t(T::GamesPlayed) }</dt><dd>{ lang.num(l.games) }</dd>
                <dt>{ lang.t(T::Points) }</dt><dd>{ lang.num(l.points) }</dd>
            </dl>
        </section>
    }
}

/// The player's puzzles: per game the puzzle rating, solved of tried and the best streak,
/// a link to the streak boards, then the recent attempts, each opening its replay.
fn puzzles(lang: Lang, p: &Profile) -> Html {
    let games = Game::ALL.iter().map(|&game| {
        let s = p.puzzles.get(game);
        html! {
            <section class="panel ladder" data-game={game.as_str()}>
                <h3>{ lang.game(game) }</h3>
                <p class="big-rating">{ lang.f(T::RatingValue, &[&lang.num(s.rating)]) }</p>
                <dl class="stats">
                    <dt>{ lang.t(T::PuzzlesSolvedTried) }</dt><dd>{ lang.f(T::PuzzlesSolvedOf, &[&lang.num(s.solved), &lang.num(s.tried)]) }</dd>
                    <dt>{ lang.t(T::BestStreak) }</dt><dd>{ lang.num(s.best_streak) }</dd>
                </dl>
            </section>
        }
    });
    let recent = p.recent_puzzles.iter().map(|a| {
        let change = a.rating_change.map(|c| c.player.after - c.player.before);
        let outcome = if a.status == protocol::puzzle::AttemptStatus::Solved {
            T::PuzzlesSolved
        } else {
            T::PuzzleMissed
        };
        html! {
            <li>
                <Link to={Route::PuzzleReplay { name: p.username.clone(), id: a.id }}>
                    <span>{ lang.game(a.game) }</span>{ " · " }
                    <span>{ crate::puzzle_model::task_of(a.kind, a.you, lang) }</span>{ " · " }
                    <span>{ lang.t(outcome) }</span>
                    if let Some(c) = change {
                        { " " }<span class={classes!("change", change_class(c))}>{ lang.num(signed(c)) }</span>
                    }
                </Link>
            </li>
        }
    });
    html! {
        <section class="panel" id="profile-puzzles">
            <h2>{ lang.t(T::NavPuzzles) }</h2>
            <div class="ladders">{ for games }</div>
            <p><Link to={Route::Streaks(Game::Xo)} class="text-link">{ lang.t(T::StreakBoardTitle) }</Link></p>
            <h3>{ lang.t(T::RecentPuzzles) }</h3>
            if p.recent_puzzles.is_empty() {
                <p class="note">{ lang.t(T::NoPuzzlesYet) }</p>
            } else {
                <ul class="games" id="recent-puzzles">{ for recent }</ul>
            }
        </section>
    }
}

/// The archived seasons the player played, newest first (SPEC O2): per ladder played, the
/// rank, rating and games as the season ended, each linking to that season's leaderboard.
fn past_seasons(lang: Lang, seasons: &[ProfileSeason]) -> Html {
    if seasons.is_empty() {
        return Html::default();
    }
    let rows = seasons.iter().rev().map(|s| {
        let ladders = Game::ALL.iter().filter_map(|&game| {
            let rank = (*s.ranks.get(game))?;
            let l = s.ladders.get(game);
            let text = lang.f(
                T::ProfileSeasonLadder,
                &[lang.game(game), &lang.num(rank), &lang.num(l.rating), &lang.num(l.games)],
            );
            Some(html! {
                <Link to={Route::ArchivedLeaderboard { game, season: s.season }} class="text-link">
                    { text }
                </Link>
            })
        });
        html! {
            <li class="season-row" data-season={s.season.to_string()}>
                <strong>{ lang.f(T::ProfileSeasonTitle, &[&lang.num(s.season), &date(lang, s.ended_ms)]) }</strong>
                <span class="season-links">{ for ladders }</span>
            </li>
        }
    });
    html! {
        <section class="panel" id="profile-seasons">
            <h2>{ lang.t(T::ProfileSeasons) }</h2>
            <ul class="season-list">{ for rows }</ul>
        </section>
    }
}

/// The arena events the player played a game in, newest first (EV5): each with the player's
/// place among the event's rows and their points, linking to the event's page.
fn played_events(lang: Lang, events: &[protocol::http::ProfileEvent]) -> Html {
    if events.is_empty() {
        return Html::default();
    }
    let rows = events.iter().map(|e| {
        let name = if e.name.is_empty() {
            lang.game(e.game).to_owned()
        } else {
            e.name.clone()
        };
        let on = matches!(
            e.phase,
            protocol::event::EventPhase::Running | protocol::event::EventPhase::Ending
        );
        html! {
            <li class="season-row" data-event={e.event.clone()}>
                <Link to={Route::Event(e.event.clone())} class="text-link">
                    <bdi>{ name }</bdi>
                </Link>
                <span>
                    { lang.f(T::ProfileEventPlace, &[&lang.num(e.rank), &lang.num(e.of)]) }
                    { " · " }{ lang.f(T::EventPoints, &[&lang.num(e.points)]) }
                    { " · " }{ date(lang, e.starts_at_ms) }
                    if on {
                        { " · " }{ lang.t(T::ProfileEventOn) }
                    }
                </span>
            </li>
        }
    });
    html! {
        <section class="panel" id="profile-events">
            <h2>{ lang.t(T::ProfileEvents) }</h2>
            <ul class="season-list">{ for rows }</ul>
        </section>
    }
}

/// Where the password form stands.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Change {
    Editing,
    Sending,
    Done,
    Failed(T),
}

/// The password change of one's own profile: the current password and a new one (A1's rule
/// checked before sending); the server ends every other session of the account.
#[component]
fn PasswordChange() -> Html {
    let ctx = use_ctx();
    let old = use_state(String::new);
    let new = use_state(String::new);
    let state = use_state(|| Change::Editing);
    let field = |value: &UseStateHandle<String>| {
        let (value, state) = (value.clone(), state.clone());
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            value.set(input.value());
            if *state == Change::Done {
                state.set(Change::Editing);
            }
        })
    };
    let onsubmit = {
        let (old, new, state) = (old.clone(), new.clone(), state.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            if *state == Change::Sending {
                return;
            }
            if !valid_password(&new) {
                state.set(Change::Failed(T::ErrPassword));
                return;
            }
            if old.is_empty() {
                state.set(Change::Failed(T::ErrWrongPassword));
                return;
            }
            state.set(Change::Sending);
            let (old_value, new_value) = ((*old).clone(), (*new).clone());
            let (old, new, state) = (old.clone(), new.clone(), state.clone());
            wasm_bindgen_futures::spawn_local(async move {
                match api::change_password(&old_value, &new_value).await {
                    Ok(_) => {
                        old.set(String::new());
                        new.set(String::new());
                        state.set(Change::Done);
                    }
                    Err(e) => state.set(Change::Failed(api_error_text(e.code))),
                }
            });
        })
    };
    let failed = match *state {
        Change::Failed(t) => Some(t),
        _ => None,
    };
    let new_bad = failed == Some(T::ErrPassword);
    html! {
        <section class="panel password-change">
            <form id="password-form" {onsubmit} novalidate=true>
                <h2>{ ctx.t(T::ChangePasswordTitle) }</h2>
                <div class="field">
                    <label for="old-password">{ ctx.t(T::CurrentPassword) }</label>
                    <input id="old-password" name="old-password" type="password" autocomplete="current-password"
                        value={(*old).clone()} oninput={field(&old)}
                        aria-invalid={(failed == Some(T::ErrWrongPassword)).to_string()} />
                </div>
                <div class="field">
                    <label for="new-password">{ ctx.t(T::NewPassword) }</label>
                    <input id="new-password" name="new-password" type="password" autocomplete="new-password"
                        value={(*new).clone()} oninput={field(&new)}
                        aria-invalid={new_bad.to_string()} aria-describedby="new-password-help" />
                    <p class="help" id="new-password-help">{ ctx.t(T::PasswordHelp) }</p>
                </div>
                <div id="password-errors" role="alert">
                    if let Some(t) = failed { <p class="error">{ ctx.t(t) }</p> }
                </div>
                <p id="password-status" role="status">
                    if *state == Change::Done { { ctx.t(T::PasswordChanged) } }
                </p>
                <button type="submit" id="password-submit" disabled={*state == Change::Sending}>
                    { ctx.t(T::ChangePasswordTitle) }
                </button>
            </form>
        </section>
    }
}

#[component]
pub fn ProfilePage(props: &ProfileProps) -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let data = use_state(|| None::<Result<Profile, ApiError>>);
    {
        let data = data.clone();
        use_effect_with(props.name.clone(), move |name| {
            data.set(None);
            let name = name.clone();
            wasm_bindgen_futures::spawn_local(async move {
                data.set(Some(api::profile(&name).await));
            });
        });
    }
    let body = match &*data {
        None => html! { <p role="status">{ ctx.t(T::Loading) }</p> },
        Some(Err(e)) if e.status == 404 => html! { <p role="alert">{ ctx.t(T::UnknownUser) }</p> },
        Some(Err(_)) => html! { <p role="alert">{ ctx.t(T::ErrNetwork) }</p> },
        Some(Ok(p)) => html! {
            <>
                <h2 id="profile-name">{ p.username.clone() }</h2>
                <p class="points">{ format!("{}: {}", ctx.t(T::Points), lang.num(p.points)) }</p>
                <div class="ladders">
                    { ladder(lang, Game::Xo, &p.ladders.xo) }
                    { ladder(lang, Game::Infinite, &p.ladders.infinite) }
                </div>
                { puzzles(lang, p) }
                { played_events(lang, &p.events) }
                { past_seasons(lang, &p.seasons) }
                <section class="panel recent">
                    <h2>{ ctx.t(T::RecentGames) }</h2>
                    if p.recent_games.is_empty() {
                        <p class="note">{ ctx.t(T::NoGames) }</p>
                    } else {
                        <ul class="games">
                            { for p.recent_games.iter().map(|g| {
                                let x = player_name(&g.game.x, lang);
                                let o = player_name(&g.game.o, lang);
                                let change = g.rating_updates.iter().find(|u| u.user == p.id).map(|u| u.change);
                                html! {
                                    <li>
                                        <Link to={Route::Replay(g.game.id.clone())}>
                                            <span>{ lang.game(g.game.game) }</span>{ " · " }
                                            <bdi>{ lang.f(T::Versus, &[&lang.f(T::NamedMark, &[&x, "X"]), &lang.f(T::NamedMark, &[&o, "O"])]) }</bdi>{ " · " }
                                            <span>{ ctx.t(outcome(&g.game, p.id)) }</span>
                                            if let Some(c) = change {
                                                { " " }<span class={classes!("change", change_class(c))}>{ lang.num(signed(c)) }</span>
                                            }
                                        </Link>
                                    </li>
                                }
                            }) }
                        </ul>
                    }
                </section>
            </>
        },
    };
    let is_me =
        matches!(&ctx.state.account, Some(Some(a)) if a.username.eq_ignore_ascii_case(&props.name));
    html! {
        <>
            <Navbar title={AttrValue::from(props.name.clone())} />
            <main id="main" class="page profile">
                { body }
                if is_me {
                    <PasswordChange />
                    <p><Link to={Route::SignIn} class="text-link">{ ctx.t(T::NavSignOut) }</Link></p>
                    <p><Link to={Route::Owner(crate::route::OwnerSection::Hub)} class="text-link">{ ctx.t(T::OwnerTitle) }</Link></p>
                    <DeleteAccountBox />
                }
            </main>
        </>
    }
}
