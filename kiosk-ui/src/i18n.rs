//! Every string the app shows, in English and Arabic (U6), looked up by key.
//!
//! Templates hold numbered holes `{0}`, `{1}` … filled by [`fill`]; a test checks that both
//! languages of every key have the same holes, so a translation can never drop a value.

use engine::{Cell, Game, Mark};

/// A language of the interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Lang {
    #[default]
    En,
    Ar,
}

impl Lang {
    pub const ALL: [Lang; 2] = [Lang::En, Lang::Ar];

    /// The BCP 47 code, for `<html lang>` and local storage.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Ar => "ar",
        }
    }

    /// The page direction: Arabic lays out right to left (the board never does).
    pub fn dir(self) -> &'static str {
        match self {
            Lang::En => "ltr",
            Lang::Ar => "rtl",
        }
    }

    /// The language's own name, for the switcher.
    pub fn native_name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::Ar => "عربي",
        }
    }

    /// Reads a stored code; anything unknown is `None`.
    pub fn from_code(code: &str) -> Option<Lang> {
        match code.trim() {
            "en" => Some(Lang::En),
            "ar" => Some(Lang::Ar),
            _ => None,
        }
    }

    /// The text of `key` in this language.
    pub fn t(self, key: T) -> &'static str {
        key.get(self)
    }

    /// The text of `key` with its holes filled. In Arabic every value is wrapped in Unicode
    /// isolates (FSI … PDI), so a Latin name, a mark or a number keeps its place in the
    /// right-to-left sentence instead of joining its neighbours' run (14.7).
    pub fn f(self, key: T, args: &[&str]) -> String {
        self.fill(key.get(self), args)
    }

    /// An owner page's text of `key` with its holes filled, as [`Lang::f`].
    pub fn fo(self, key: OT, args: &[&str]) -> String {
        self.fill(key.get(self), args)
    }

    /// An owner page's text of `key`.
    pub fn to(self, key: OT) -> &'static str {
        key.get(self)
    }

    fn fill(self, template: &str, args: &[&str]) -> String {
        match self {
            Lang::En => fill(template, args),
            Lang::Ar => {
                // A value already made from an Arabic template ("Sara (X)") is Arabic text: it
                // is isolated right to left, so its name still comes before its mark.
                let isolated: Vec<String> = args
                    .iter()
                    .map(|a| {
                        if a.contains('\u{2068}') {
                            format!("\u{2067}{a}\u{2069}")
                        } else {
                            isolate(a)
                        }
                    })
                    .collect();
                let refs: Vec<&str> = isolated.iter().map(String::as_str).collect();
                fill(template, &refs)
            }
        }
    }

    /// A number as this language writes it: Arabic-Indic digits in Arabic.
    pub fn num(self, n: impl std::fmt::Display) -> String {
        let text = n.to_string();
        match self {
            Lang::En => text,
            Lang::Ar => text
                .chars()
                .map(|c| match c.to_digit(10) {
                    Some(d) => char::from_u32(0x0660 + d).unwrap_or(c),
                    None => c,
                })
                .collect(),
        }
    }

    pub fn game(self, game: Game) -> &'static str {
        self.t(match game {
            Game::Xo => T::GameXo,
            Game::Infinite => T::GameInfinite,
        })
    }

    /// The spoken name of a cell (SPEC "Games"); English uses the engine's names.
    pub fn cell(self, cell: Cell) -> &'static str {
        const AR: [&str; 9] = [
            "أعلى اليسار",
            "أعلى الوسط",
            "أعلى اليمين",
            "وسط اليسار",
            "المركز",
            "وسط اليمين",
            "أسفل اليسار",
            "أسفل الوسط",
            "أسفل اليمين",
        ];
        let i = usize::from(cell).min(8);
        match self {
            Lang::En => engine::CELL_NAMES[i],
            Lang::Ar => AR[i],
        }
    }
}

/// A mark as written on the board. Both languages write the Latin letters, as on the board.
pub fn mark(m: Mark) -> &'static str {
    match m {
        Mark::X => "X",
        Mark::O => "O",
    }
}

/// `text` between a first-strong isolate and its pop (U+2068 … U+2069).
pub fn isolate(text: &str) -> String {
    format!("\u{2068}{text}\u{2069}")
}

/// Replaces `{0}`, `{1}` … in `template` with `args`; a hole without an argument stays empty.
pub fn fill(template: &str, args: &[&str]) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) if after[..close].chars().all(|c| c.is_ascii_digit()) && close > 0 => {
                let n: usize = after[..close].parse().unwrap_or(usize::MAX);
                out.push_str(args.get(n).copied().unwrap_or(""));
                rest = &after[close + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The holes a template uses, sorted.
pub fn holes(template: &str) -> Vec<usize> {
    let mut found: Vec<usize> = template
        .split('{')
        .skip(1)
        .filter_map(|s| s.split_once('}'))
        .filter_map(|(n, _)| n.parse().ok())
        .collect();
    found.sort_unstable();
    found.dedup();
    found
}

macro_rules! texts {
    ($(#[$doc:meta])* $name:ident { $($key:ident => $en:literal, $ar:literal;)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name { $($key,)* }

        impl $name {
            /// Every key, for tests.
            pub const ALL: &'static [$name] = &[$($name::$key,)*];

            pub fn get(self, lang: Lang) -> &'static str {
                match lang {
                    Lang::En => match self { $($name::$key => $en,)* },
                    Lang::Ar => match self { $($name::$key => $ar,)* },
                }
            }
        }
    };
}

texts! {
/// A key of the string table.
T {
    AppName => "XO Kiosk", "إكس أو كيوسك";
    OwnerCodeTitle => "Owner code", "رمز المالك";
    OwnerCodeHelp => "On your phone: sign in, open {1} and enter this code within {0} minutes. It works once.", "على هاتفك: سجّل الدخول وافتح {1} وأدخل هذا الرمز خلال {0} دقائق. يعمل مرة واحدة.";
    OwnerCodeFailed => "No owner code could be made.", "تعذّر إنشاء رمز المالك.";
    Close => "Close", "إغلاق";
    OwnerTitle => "Owner", "المالك";
    OwnerClaimHelp => "To run this kiosk, enter the owner code shown on the kiosk's screen: press and hold \"Join from your phone\" there.", "لإدارة هذا الكشك أدخل رمز المالك الظاهر على شاشة الكشك: اضغط مطولًا على «انضم من هاتفك» هناك.";
    OwnerSignInFirst => "Sign in first; the code makes your account an owner.", "سجّل الدخول أولًا؛ فالرمز يجعل حسابك مالكًا.";
    OwnerCodeLabel => "Owner code (8 digits)", "رمز المالك (8 أرقام)";
    OwnerClaim => "Become an owner", "كن مالكًا";
    OwnerBadCode => "That code is wrong, expired or used. Show a new one on the kiosk.", "الرمز خاطئ أو منتهٍ أو مستخدم. اعرض رمزًا جديدًا على الكشك.";
    OwnersOfKiosk => "Owners of this kiosk", "مالكو هذا الكشك";
    OwnerYouAre => "You are an owner of this kiosk.", "أنت مالك لهذا الكشك.";
    DeleteAccount => "Delete my account", "احذف حسابي";
    DeleteAccountWarn => "This removes your account, ratings and sign-ins for good. Games you played against other players stay, shown as \"deleted player\".", "يحذف هذا حسابك وتقييماتك وجلساتك نهائيًا. تبقى المباريات التي لعبتها ضد لاعبين آخرين باسم «لاعب محذوف».";
    DeleteAccountConfirm => "Delete for good", "احذف نهائيًا";
    DeleteAccountCancel => "Keep my account", "أبقِ حسابي";
    ErrLastOwner => "You are the kiosk's last owner: make another account an owner first.", "أنت آخر مالك للكشك: اجعل حسابًا آخر مالكًا أولًا.";
    OwnerHubHelp => "What would you like to look after?", "ماذا تريد أن تدير؟";
    OwnerPlayers => "Players", "اللاعبون";
    OwnerPlayersHelp => "Rename or remove accounts, reset a password, see who is online", "أعد تسمية الحسابات أو احذفها، أعد تعيين كلمة مرور، واعرف من المتصل";
    OwnerRooms => "Rooms", "الغرف";
    OwnerRoomsHelp => "Close a room and tell its players why", "أغلق غرفة وأخبر لاعبيها بالسبب";
    OwnerSeasons => "Seasons", "المواسم";
    OwnerSeasonsHelp => "Archive the ladders and start fresh", "أرشف الترتيب وابدأ من جديد";
    OwnerBackup => "Backup and restore", "النسخ الاحتياطي والاستعادة";
    OwnerBackupHelp => "Download all data as one file; restore such a file", "نزّل كل البيانات في ملف واحد؛ واستعد ملفًا كهذا";
    OwnerUpdate => "Update", "التحديث";
    OwnerUpdateHelp => "Install a new version without reflashing; restart", "ثبّت إصدارًا جديدًا دون إعادة نسخ البطاقة؛ وأعد التشغيل";
    OwnerHealth => "Health", "الحالة";
    OwnerHealthHelp => "Version, uptime, storage, recent errors", "الإصدار ومدة التشغيل والتخزين وآخر الأخطاء";
    OwnerSettings => "Settings", "الإعدادات";
    OwnerSettingsHelp => "Idle time, the public address, the default language", "مهلة الخمول والعنوان العام واللغة الافتراضية";
    OwnerBack => "Owner pages", "صفحات المالك";
    OwnerAddHelp => "To add an owner: they sign in on their phone, open this page and enter a new code from the kiosk's screen.", "لإضافة مالك: يسجّل الدخول على هاتفه ويفتح هذه الصفحة ويدخل رمزًا جديدًا من شاشة الكشك.";
    OwnerYouTag => "(you)", "(أنت)";
    OwnerRemoveOwner => "Remove as owner", "أزل من المالكين";
    OwnerRemoveOwnerAsk => "{0} will no longer be an owner of this kiosk.", "لن يبقى {0} مالكًا لهذا الكشك.";
    OwnerRemovedOwner => "{0} is no longer an owner.", "لم يعد {0} مالكًا.";
    Cancel => "Cancel", "إلغاء";
    Refresh => "Refresh", "حدّث";
    ErrNotOwner => "Only an owner of the kiosk may do this.", "وحده مالك الكشك يستطيع ذلك.";
    ErrGone => "It is no longer there; the list was refreshed.", "لم يعد موجودًا؛ حُدّثت القائمة.";
    ErrServerFault => "The server failed to do that; try again.", "أخفق الخادم في ذلك؛ حاول مجددًا.";
    ErrFileTooLarge => "That file is too large.", "هذا الملف كبير جدًا.";
    PlayersSearch => "Find a player", "ابحث عن لاعب";
    PlayersOnlineOnly => "Only who is online", "المتصلون فقط";
    PlayersCount => "{0} accounts · {1} online · {2} connections in all", "{0} حساب، {1} متصل، {2} اتصال إجمالًا";
    PlayersNone => "No account matches.", "لا يوجد حساب مطابق.";
    PlayersMore => "{0} more accounts match: search to narrow the list.", "{0} حسابات أخرى مطابقة: ابحث لتضييق القائمة.";
    PlayerOnline => "online ({0})", "متصل ({0})";
    PlayerOffline => "offline", "غير متصل";
    PlayerOwnerTag => "owner", "مالك";
    PlayerJoined => "joined {0}", "انضم {0}";
    PlayerManage => "Manage", "إدارة";
    PlayerRenameLabel => "New name for {0}", "الاسم الجديد لـ {0}";
    PlayerRename => "Rename", "أعد التسمية";
    PlayerRenamed => "{0} is now called {1}.", "أصبح اسم {0} الآن {1}.";
    PlayerReset => "Make a password reset code", "أنشئ رمز إعادة تعيين كلمة المرور";
    PlayerResetCode => "Reset code for {0}", "رمز إعادة التعيين لـ {0}";
    PlayerResetHelp => "Read this code to {0}. On the sign-in page they choose \"Have a reset code?\" and set a new password. It works once, within {1} minutes; the old password works until then.", "اقرأ هذا الرمز على {0}. في صفحة تسجيل الدخول يختار «لديك رمز إعادة تعيين؟» ويعيّن كلمة مرور جديدة. يعمل مرة واحدة خلال {1} دقيقة؛ وتبقى كلمة المرور القديمة صالحة حتى ذلك الحين.";
    PlayerRemove => "Remove account", "احذف الحساب";
    PlayerRemoveAsk => "Remove the account {0} for good? Its ratings and sign-ins go; its games against other players stay, shown as \"deleted player\".", "أتحذف الحساب {0} نهائيًا؟ تُحذف تقييماته وجلساته؛ وتبقى مبارياته ضد لاعبين آخرين باسم «لاعب محذوف».";
    PlayerRemoveYes => "Remove {0} for good", "احذف {0} نهائيًا";
    PlayerRemoved => "The account {0} was removed.", "حُذف الحساب {0}.";
    RoomsNone => "No room is open.", "لا توجد غرفة مفتوحة.";
    RoomClose => "Close room", "أغلق الغرفة";
    RoomCloseReason => "Why (its players see this)", "السبب (يراه لاعبوها)";
    RoomReasonDefault => "The kiosk's owner closed this room.", "أغلق مالك الكشك هذه الغرفة.";
    RoomCloseAsk => "Close this room now? A game in progress ends without a result, and everyone in the room sees your reason.", "أتغلق هذه الغرفة الآن؟ تنتهي اللعبة الجارية دون نتيجة، ويرى كل من في الغرفة سببك.";
    RoomCloseYes => "Close it now", "أغلقها الآن";
    RoomClosedDone => "Room closed. Its players were told: {0}", "أُغلقت الغرفة. قيل للاعبيها: {0}";
    RoomReasonNeeded => "Write a reason of 1 to {0} characters.", "اكتب سببًا من 1 إلى {0} حرفًا.";
    SeasonCurrent => "Season {0} is being played.", "يُلعب الموسم {0} الآن.";
    SeasonStart => "Start a new season", "ابدأ موسمًا جديدًا";
    SeasonStartAsk => "Start season {1}? Season {0}'s ladders are archived as they stand now (still shown on the leaderboard and profiles), and every player starts again at rating 1200 with no points and no games. Finished games stay as they are.", "أتبدأ الموسم {1}؟ يُؤرشف ترتيب الموسم {0} كما هو الآن (ويبقى ظاهرًا في لوحة المتصدرين والملفات الشخصية)، ويبدأ كل لاعب من جديد بتقييم 1200 دون نقاط ولا مباريات. تبقى المباريات المنتهية كما هي.";
    SeasonStartYes => "Archive and start season {0}", "أرشف وابدأ الموسم {0}";
    SeasonStarted => "Season {0} was archived; season {1} has begun.", "أُرشف الموسم {0}؛ وبدأ الموسم {1}.";
    SeasonsArchived => "Archived seasons", "المواسم المؤرشفة";
    SeasonsNone => "No season has been archived yet.", "لم يُؤرشف أي موسم بعد.";
    SeasonRow => "Season {0} · ended {1} · {2} players", "الموسم {0}، انتهى {1}، {2} لاعب";
    SeasonArchivedTitle => "Season {0} (archived)", "الموسم {0} (مؤرشف)";
    SeasonBackToCurrent => "Current season", "الموسم الحالي";
    ProfileSeasons => "Past seasons", "المواسم السابقة";
    ProfileSeasonTitle => "Season {0} · ended {1}", "الموسم {0}، انتهى {1}";
    ProfileSeasonLadder => "{0}: rank {1} · rating {2} · games {3}", "{0}: المرتبة {1}، التصنيف {2}، المباريات {3}";
    BackupDownloadHelp => "One file with every account, rating, game, owner and season as they are now. Keep it somewhere safe: it holds the password hashes.", "ملف واحد فيه كل الحسابات والتقييمات والمباريات والمالكين والمواسم كما هي الآن. احفظه في مكان آمن: ففيه تجزئات كلمات المرور.";
    BackupDownload => "Download a backup", "نزّل نسخة احتياطية";
    RestoreTitle => "Restore a backup", "استعد نسخة احتياطية";
    RestorePick => "Backup file (.xokb)", "ملف النسخة الاحتياطية (.xokb)";
    RestoreChecking => "Checking the file…", "جارٍ فحص الملف…";
    RestorePreview => "This backup was made on {0} by version {1} (file format {2}, data version {3}). It holds {4} accounts, {5} games and {6} owners.", "أُنشئت هذه النسخة في {0} بالإصدار {1} (صيغة الملف {2}، إصدار البيانات {3}). فيها {4} حساب و{5} مباراة و{6} مالك.";
    RestoreAsk => "Replace all data on this kiosk with this backup? Every room closes, and everyone, you included, signs in again with the backup's accounts. The data it replaces is first kept as a backup file in the data folder.", "أتستبدل كل بيانات هذا الكشك بهذه النسخة؟ تُغلق كل الغرف، ويسجّل الجميع الدخول من جديد، وأنت منهم، بحسابات النسخة. تُحفظ البيانات المستبدلة أولًا ملفَّ نسخة احتياطية في مجلد البيانات.";
    RestoreYes => "Restore this backup", "استعد هذه النسخة";
    RestoreDone => "Restored: {0} accounts and {1} games. The data it replaced is kept in the data folder as {2}; restore that file to undo. Sign in again with an account from the backup.", "تمت الاستعادة: {0} حساب و{1} مباراة. حُفظت البيانات المستبدلة في مجلد البيانات باسم {2}؛ استعد ذلك الملف للتراجع. سجّل الدخول من جديد بحساب من النسخة.";
    ErrBadBackup => "That file is not a backup of an XO Kiosk, or it is damaged. Nothing was changed.", "هذا الملف ليس نسخة احتياطية لـ XO Kiosk أو أنه تالف. لم يتغير شيء.";
    ErrBackupTooNew => "That backup was made by a newer version of XO Kiosk: update this kiosk first. Nothing was changed.", "أُنشئت هذه النسخة بإصدار أحدث من XO Kiosk: حدّث هذا الكشك أولًا. لم يتغير شيء.";
    ScreenAsleep => "The screen is asleep. Touch it to wake it.", "الشاشة نائمة. المسها لإيقاظها.";
    KeptTitle => "Backups kept on this kiosk", "النسخ الاحتياطية المحفوظة على هذا الكشك";
    KeptHelp => "Before each restore the kiosk keeps the data it replaces here; it keeps the newest {0} and removes older ones.", "قبل كل استعادة يحفظ الكشك هنا البيانات التي تُستبدل؛ ويبقي أحدث {0} ويحذف الأقدم.";
    KeptNone => "No backup is kept yet.", "لا توجد نسخة محفوظة بعد.";
    KeptRow => "{0} · {1} · version {2}", "{0}، {1}، الإصدار {2}";
    KeptDownload => "Download", "نزّل";
    KeptRestore => "Restore", "استعد";
    KeptRestoreAsk => "Replace all data on this kiosk with the backup of {0}? Every room closes and everyone signs in again; the data it replaces is kept here first.", "أتستبدل كل بيانات هذا الكشك بنسخة {0}؟ تُغلق كل الغرف ويسجّل الجميع الدخول من جديد؛ وتُحفظ البيانات المستبدلة هنا أولًا.";
    UpdateRunning => "Running version {0}", "الإصدار العامل {0}";
    UpdateInstalled => "Installed: {0}", "المثبّت: {0}";
    UpdateNoneInstalled => "No update has been installed.", "لم يُثبّت أي تحديث.";
    UpdateBad => "Failed to become healthy: {0}", "أخفق في العمل السليم: {0}";
    UpdateRollback => "Last rollback: version {0} did not become healthy, so {1} runs instead ({2}, {3}).", "آخر تراجع: لم يعمل الإصدار {0} سليمًا، فيعمل {1} بدلًا منه ({2}، {3}).";
    UpdateNoRollback => "No rollback has happened.", "لم يحدث أي تراجع.";
    UpdateImage => "the card's own version", "إصدار البطاقة الأصلي";
    UpdatePick => "New firmware-host program", "برنامج firmware-host الجديد";
    UpdateUpload => "Upload and check", "ارفع وافحص";
    UpdateChecking => "Checking the new version: it is started against a copy of the data. This can take a minute…", "جارٍ فحص الإصدار الجديد: يُشغَّل على نسخة من البيانات. قد يستغرق هذا دقيقة…";
    UpdateDone => "Version {0} passed the checks and is installed. Restart to run it.", "اجتاز الإصدار {0} الفحوص وثُبّت. أعد التشغيل لتشغيله.";
    UpdateNotElf => "That file is not a program (an ELF executable). Nothing was installed.", "هذا الملف ليس برنامجًا (ملف ELF تنفيذيًا). لم يُثبَّت شيء.";
    UpdateWrongArch => "That program is built for another kind of computer. Nothing was installed.", "هذا البرنامج مبني لنوع آخر من الحواسيب. لم يُثبَّت شيء.";
    UpdateNotNewer => "That version is not newer than the one running. Nothing was installed.", "هذا الإصدار ليس أحدث من العامل. لم يُثبَّت شيء.";
    UpdateDoesNotStart => "That program did not start or did not name its version. Nothing was installed.", "لم يعمل هذا البرنامج أو لم يذكر إصداره. لم يُثبَّت شيء.";
    UpdateUnhealthy => "That version started but did not pass its health check. Nothing was installed.", "عمل هذا الإصدار لكنه لم يجتز فحص السلامة. لم يُثبَّت شيء.";
    UpdateIo => "The kiosk could not read the file or write its data card. Nothing was installed.", "تعذّر على الكشك قراءة الملف أو الكتابة على بطاقة البيانات. لم يُثبَّت شيء.";
    UpdateNoRoom => "The data card lacks the room to check this update: the new version, a snapshot of the data and a reserve that must stay free. Nothing was installed; free some space first.", "لا تتسع بطاقة البيانات لفحص هذا التحديث: الإصدار الجديد ولقطة من البيانات واحتياطي يجب أن يبقى فارغًا. لم يُثبَّت شيء؛ أفرغ بعض المساحة أولًا.";
    UpdateNoRoomNow => "The data card has {0} free; checking an update this size needs about {1} and {2} must stay free. Free some space before uploading.", "في بطاقة البيانات {0} متاحة؛ يحتاج فحص تحديث بهذا الحجم نحو {1} ويجب أن تبقى {2} متاحة. أفرغ بعض المساحة قبل الرفع.";
    UpdateDataInUse => "Another server has the kiosk's data open, so the update could not be checked against it. Nothing was installed.", "خادم آخر يفتح بيانات الكشك، فتعذّر فحص التحديث عليها. لم يُثبَّت شيء.";
    UpdateDoneManual => "Version {0} passed the checks and is kept in the data folder as updates/firmware-host-{0}. This server was not started by the SD-card image's launcher, so a restart does not run it: start that file instead.", "اجتاز الإصدار {0} الفحوص وحُفظ في مجلد البيانات باسم updates/firmware-host-{0}. لم يشغّل هذا الخادمَ مشغّلُ صورة البطاقة، فلا تشغّله إعادة التشغيل: شغّل ذلك الملف بدلًا منه.";
    StopServer => "Stop the server", "أوقف الخادم";
    StopAsk => "Stop the server now? Nothing here starts it again: it must be started again by hand on the computer it runs on. Rooms are saved.", "أتوقف الخادم الآن؟ لا شيء هنا يعيد تشغيله: يجب تشغيله من جديد يدويًا على الحاسوب الذي يعمل عليه. تُحفظ الغرف.";
    StopYes => "Stop now", "أوقف الآن";
    Stopped => "The server has stopped. Start it again by hand; this page notices when it is back.", "توقف الخادم. شغّله من جديد يدويًا؛ تلاحظ هذه الصفحة عودته.";
    RestartAskRunScript => "Restart now? Rooms are saved and everyone reconnects within a few seconds. scripts/run starts the same program again: installed updates run only on the SD-card image.", "أتعيد التشغيل الآن؟ تُحفظ الغرف ويعود الجميع للاتصال خلال ثوانٍ. يشغّل scripts/run البرنامج نفسه من جديد: لا تعمل التحديثات المثبّتة إلا على صورة البطاقة.";
    RestartedNotNewest => "Version {0} is installed but not running.", "الإصدار {0} مثبّت لكنه لا يعمل.";
    RestartedRolledBack => "Version {0} is installed but not running: see the last rollback.", "الإصدار {0} مثبّت لكنه لا يعمل: انظر آخر تراجع.";
    Restart => "Restart the server", "أعد تشغيل الخادم";
    RestartAsk => "Restart now? Rooms are saved and everyone reconnects within a few seconds; the newest good version runs.", "أتعيد التشغيل الآن؟ تُحفظ الغرف ويعود الجميع للاتصال خلال ثوانٍ؛ ويعمل أحدث إصدار سليم.";
    RestartYes => "Restart now", "أعد التشغيل الآن";
    Restarting => "Restarting… this page notices when the server is back.", "جارٍ إعادة التشغيل… تلاحظ هذه الصفحة عودة الخادم.";
    RestartedBack => "The server is back, running version {0}.", "عاد الخادم ويعمل بالإصدار {0}.";
    HealthOk => "Everything is working.", "كل شيء يعمل.";
    HealthDegraded => "Needs attention: {0}", "يحتاج إلى انتباه: {0}";
    HealthVersion => "Version", "الإصدار";
    HealthUptime => "Running for", "يعمل منذ";
    HealthStorage => "Data card", "بطاقة البيانات";
    HealthStorageLine => "{0} used, {1} free", "{0} مستخدمة، {1} متاحة";
    HealthStorageNearlyFull => "nearly full", "ممتلئة تقريبًا";
    HealthStorageFailing => "cannot be written: {0}", "تتعذّر الكتابة عليها: {0}";
    HealthUnknown => "unknown", "غير معروف";
    HealthActivity => "Now", "الآن";
    HealthActivityLine => "{0} players online · {1} rooms · {2} connections", "{0} لاعب متصل، {1} غرفة، {2} اتصال";
    HealthDisplay => "Status display", "شاشة الحالة";
    HealthDisplayOk => "{0}: working", "{0}: تعمل";
    HealthDisplayStarting => "{0}: starting", "{0}: قيد التشغيل";
    HealthDisplayFailing => "{0}: not working ({1}); tried again every 30 s", "{0}: لا تعمل ({1})؛ تُجرَّب من جديد كل 30 ثانية";
    HealthErrors => "Recent warnings and errors", "آخر التحذيرات والأخطاء";
    HealthNoErrors => "None since the server started.", "لا شيء منذ بدء الخادم.";
    UptimeDays => "{0} d {1} h", "{0} يوم {1} ساعة";
    UptimeHours => "{0} h {1} min", "{0} ساعة {1} دقيقة";
    UptimeMinutes => "{0} min", "{0} دقيقة";
    SizeMb => "{0} MB", "{0} ميغابايت";
    SizeGb => "{0} GB", "{0} غيغابايت";
    HaveResetCode => "Have a reset code?", "لديك رمز إعادة تعيين؟";
    ResetTitle => "Set a new password", "عيّن كلمة مرور جديدة";
    ResetHelp => "The kiosk's owner gives you a reset code when you forget your password.", "يعطيك مالك الكشك رمز إعادة تعيين عندما تنسى كلمة مرورك.";
    ResetCodeLabel => "Reset code (8 digits)", "رمز إعادة التعيين (8 أرقام)";
    ResetSubmit => "Set the password and sign in", "عيّن كلمة المرور وسجّل الدخول";
    BackToSignIn => "Back to sign in", "عُد إلى تسجيل الدخول";
    ErrBadResetCode => "That username or reset code is wrong, expired or used. Ask the kiosk's owner for a new code.", "اسم المستخدم أو رمز إعادة التعيين خاطئ أو منتهٍ أو مستخدم. اطلب رمزًا جديدًا من مالك الكشك.";
    NavLobby => "Lobby", "الردهة";
    NavHome => "Home", "الرئيسية";
    NavLeaderboard => "Leaderboard", "المتصدرون";
    NavRules => "Rules", "القواعد";
    NavSignIn => "Sign in", "تسجيل الدخول";
    NavSignOut => "Sign out", "تسجيل الخروج";
    NavMain => "Main", "القائمة الرئيسية";
    LanguageLabel => "Language", "اللغة";
    Connecting => "Connecting to the server…", "جارٍ الاتصال بالخادم…";
    Reconnecting => "Connection lost. Reconnecting…", "انقطع الاتصال. جارٍ إعادة الاتصال…";
    Loading => "Loading…", "جارٍ التحميل…";
    Dismiss => "Dismiss", "إغلاق";
    Guest => "Guest", "ضيف";
    SignedInAs => "Signed in as {0}", "مسجّل الدخول باسم {0}";
    GameXo => "XO", "إكس أو";
    GameInfinite => "Infinite XO", "إكس أو اللانهائية";
    NotFound => "There is nothing at this address.", "لا يوجد شيء على هذا العنوان.";

    LobbyTitle => "Rooms", "الغرف";
    LobbyEmpty => "No rooms yet. Create one!", "لا توجد غرف بعد. أنشئ واحدة!";
    LobbyMore => "{0} more rooms.", "{0} غرف أخرى.";
    ShowMore => "Show more", "اعرض المزيد";
    Watch => "Watch", "شاهد";
    OpenRoom => "Open", "افتح";
    PhaseWaiting => "Waiting for a player", "بانتظار لاعب";
    PhaseWaitingFull => "Getting ready", "يستعدّان";
    PhasePlaying => "Playing", "جارية";
    PhaseFinished => "Finished", "انتهت";
    KindPlayer => "Rated", "مصنّفة";
    KindBot => "Against the bot", "ضد الروبوت";
    KindLocal => "Two on one device", "لاعبان على جهاز واحد";
    JoinOpen => "Open", "مفتوحة";
    JoinApproval => "Host approval", "بموافقة المضيف";
    JoinPasscode => "Passcode", "برمز دخول";
    Watching => "{0} watching", "{0} يشاهدون";
    Versus => "{0} vs {1}", "{0} ضد {1}";
    BotName => "Bot {0} %", "الروبوت {0}٪";
    GuestName => "Guest {0}", "ضيف {0}";
    YouName => "You", "أنت";
    NamedMark => "{0} ({1})", "{0} ({1})";
    CreateRoom => "Create room", "إنشاء غرفة";
    LinksTitle => "More", "المزيد";

    CreateTitle => "Create a room", "إنشاء غرفة";
    FieldGame => "Game", "اللعبة";
    FieldOpponent => "Opponent", "الخصم";
    OppPlayer => "Player", "لاعب";
    OppBot => "Bot", "الروبوت";
    OppLocal => "Local player", "لاعب على الجهاز نفسه";
    FieldDifficulty => "Difficulty", "الصعوبة";
    Percent => "{0} %", "{0}٪";
    FieldSide => "You play", "تلعب بـ";
    SideXFirst => "X (moves first)", "X (يبدأ أولًا)";
    SideOSecond => "O (the bot opens)", "O (يبدأ الروبوت)";
    SideXShort => "X · first", "X · أولًا";
    SideOShort => "O · second", "O · ثانيًا";
    FieldName1 => "First player's name", "اسم اللاعب الأول";
    FieldName2 => "Second player's name", "اسم اللاعب الثاني";
    FieldName1Short => "Player 1", "اللاعب 1";
    FieldName2Short => "Player 2", "اللاعب 2";
    DefaultName1 => "Player 1", "اللاعب 1";
    DefaultName2 => "Player 2", "اللاعب 2";
    NamesRandom => "X and O are assigned at random.", "يُوزَّع X وO عشوائيًا.";
    FieldTime => "Time per move", "الوقت لكل نقلة";
    FieldTimeShort => "Time", "الوقت";
    Seconds => "{0} s", "{0} ث";
    FieldJoining => "Joining", "الانضمام";
    JoiningOpen => "Open", "مفتوح";
    JoiningApproval => "Host approval", "بموافقة المضيف";
    JoiningPasscode => "4-digit passcode", "رمز من 4 أرقام";
    FieldPasscode => "Passcode (4 digits)", "رمز الدخول (4 أرقام)";
    CreateRoomButton => "Create Room", "إنشاء الغرفة";
    GuestCreateNote => "Sign in to create rated rooms against other players.", "سجّل الدخول لإنشاء غرف مصنّفة ضد لاعبين آخرين.";
    ErrNameMissing => "Enter a name for player {0}.", "أدخل اسمًا للاعب {0}.";
    ErrNameLong => "A name has at most 20 characters.", "الاسم 20 حرفًا على الأكثر.";
    ErrNameControl => "A name cannot contain control characters.", "لا يمكن أن يحتوي الاسم على رموز تحكّم.";
    ErrNameClash => "The two names must differ (ignoring capitals and spaces).", "يجب أن يختلف الاسمان (بغض النظر عن حالة الأحرف والمسافات).";
    ErrPasscodeFormat => "The passcode is exactly four digits.", "رمز الدخول أربعة أرقام بالضبط.";

    Host => "Host", "المضيف";
    SeatOpen => "Open seat", "مقعد شاغر";
    Ready => "Ready", "جاهز";
    NotReady => "Not ready", "غير جاهز";
    Present => "here", "حاضر";
    Away => "away", "غائب";
    You => "you", "أنت";
    Kick => "Kick", "طرد";
    KickConfirm => "Kick {0}?", "طرد {0}؟";
    Yes => "Yes", "نعم";
    No => "No", "لا";
    StartGame => "Start", "ابدأ";
    StartNeedsReady => "The host can start once both players are ready.", "يمكن للمضيف البدء عندما يكون اللاعبان جاهزين.";
    Requests => "Join requests", "طلبات الانضمام";
    Accept => "Accept", "قبول";
    Decline => "Decline", "رفض";
    PasscodeIs => "Passcode: {0}", "رمز الدخول: {0}";
    ShareLink => "Share this link", "شارك هذا الرابط";
    JoinButton => "Join", "انضم";
    RequestSent => "Request sent. Waiting for the host…", "أُرسل الطلب. بانتظار المضيف…";
    CancelRequest => "Cancel request", "إلغاء الطلب";
    SignInToJoin => "Sign in to join this room.", "سجّل الدخول للانضمام إلى هذه الغرفة.";
    YouWatch => "You are watching.", "أنت تشاهد.";
    RatingValue => "Rating {0}", "التصنيف {0}";
    RatingChange => "Rating change {0}", "تغيّر التصنيف {0}";
    Players => "Players", "اللاعبون";
    BotPlayer => "Bot", "الروبوت";

    YourTurn => "Your turn — you are {0}", "دورك — أنت {0}";
    NameToMove => "{0} ({1}) to move", "دور {0} ({1})";
    YouAre => "You are {0}", "أنت {0}";
    RepetitionWarning => "Same position twice: once more and it is a draw", "تكرر الوضع مرتين: مرة أخرى وتنتهي بالتعادل";
    WaitingToStart => "Waiting for the game to start", "بانتظار بدء اللعبة";
    ClockLabel => "Time left", "الوقت المتبقي";
    ClockAutoMove => "a random move is played at zero", "تُلعب نقلة عشوائية عند الصفر";
    ClockForfeit => "the game is lost at zero", "تُخسر اللعبة عند الصفر";

    ResultLine => "{0} wins with a line", "{0} يفوز بخط";
    ResultYouWinLine => "You win with a line", "فزت بخط";
    ResultFullBoard => "Draw: the board is full", "تعادل: امتلأت اللوحة";
    ResultRepetition => "Draw by repetition", "تعادل بالتكرار";
    ResultAgreed => "Draw by agreement", "تعادل بالاتفاق";
    ResultResigned => "{0} resigned: {1} wins", "{0} استسلم: {1} يفوز";
    ResultTimeout => "{0} ran out of time: {1} wins", "نفد وقت {0}: {1} يفوز";

    BoardLabel => "Board", "اللوحة";
    CellEmpty => "empty", "فارغة";
    VanishesNext => "vanishes next", "تختفي تاليًا";
    HintLabel => "hint", "تلميح";
    WinningLine => "winning line", "خط الفوز";

    AnnMoved => "{0} on {1}", "{0} في {1}";
    AnnMovedRemoved => "{0} on {1}; {2} vanished", "{0} في {1}، واختفت {2}";
    AnnAutomatic => "Time ran out. {0}", "انتهى الوقت. {0}";
    AnnBot => "Bot: {0}", "الروبوت: {0}";
    AnnDrawOffered => "{0} offers a draw", "{0} يعرض التعادل";
    AnnDrawDeclined => "The draw offer is off", "أُلغي عرض التعادل";
    AnnUndone => "Move taken back", "تم التراجع عن النقلة";
    AnnJoinRequested => "{0} asks to join", "{0} يطلب الانضمام";
    AnnRequestDeclined => "The host declined your request", "رفض المضيف طلبك";
    AnnKicked => "The host removed you from the room", "أخرجك المضيف من الغرفة";
    AnnSeatMoved => "You moved to another room", "انتقلت إلى غرفة أخرى";
    AnnClosedHostLeft => "The host left; the room closed", "غادر المضيف؛ أُغلقت الغرفة";
    AnnClosedEnded => "The game was ended", "أُنهيت اللعبة";
    AnnClosedIdle => "The room closed after a long idle time", "أُغلقت الغرفة بعد خمول طويل";
    AnnClosedShutdown => "The server is restarting", "الخادم يعيد التشغيل";
    AnnClosedOwner => "The kiosk's owner closed the room", "أغلق مالك الكشك الغرفة";
    AnnHint => "Hint: {0}", "تلميح: {0}";
    AnnGameStarted => "The game started. {0}", "بدأت اللعبة. {0}";

    OfferDraw => "Offer draw", "اعرض التعادل";
    DrawOffered => "Draw offered", "عُرض التعادل";
    AcceptDraw => "Accept draw", "اقبل التعادل";
    Resign => "Resign", "استسلام";
    ResignExit => "Resign & Exit", "استسلام وخروج";
    Exit => "Exit", "خروج";
    ResignConfirm => "Resign this game?", "هل تستسلم في هذه اللعبة؟";
    Hint => "Hint", "تلميح";
    Undo => "Undo", "تراجع";
    Replay => "Replay", "إعادة العرض";
    BackToGame => "Back to the game", "عودة إلى اللعبة";
    EndGameConfirm => "End this game?", "هل تنهي هذه اللعبة؟";
    StillPlaying => "Still playing?", "هل ما زلت تلعب؟";
    StillPlayingNote => "Without an answer the game ends in {0} s.", "من دون إجابة تنتهي اللعبة خلال {0} ث.";
    PlayAgain => "Play again", "العب مجددًا";
    Rematch => "Rematch", "إعادة المباراة";
    RematchOffered => "Rematch offered", "عُرضت إعادة المباراة";
    AcceptRematch => "Accept rematch", "اقبل إعادة المباراة";
    AnnRematchOffered => "{0} offers a rematch, colours swapped", "{0} يعرض إعادة المباراة بألوان معكوسة";
    AnnRematchDeclined => "The rematch was declined", "رُفضت إعادة المباراة";
    AnnNextGame => "The next game starts", "تبدأ اللعبة التالية";
    ResultPending => "Result saved when the card can be written", "ستُحفظ النتيجة عندما تصبح الكتابة على البطاقة ممكنة";
    AnnResultSaved => "Result saved: the ratings changed", "حُفظت النتيجة: تغيّر التصنيف";

    EloTitle => "ELO changes", "تغيّرات التصنيف";
    Win => "Win", "فوز";
    Draw => "Draw", "تعادل";
    Loss => "Loss", "خسارة";
    NameWins => "{0} wins", "{0} يفوز";
    RatingArrow => "{0} → {1}", "{0} ← {1}";
    EloNote => "A preview only: ratings change when the game ends.", "معاينة فقط: يتغيّر التصنيف عند نهاية اللعبة.";

    MovesTitle => "Moves", "النقلات";
    ReplayFirst => "First", "الأولى";
    ReplayPrev => "Previous move", "النقلة السابقة";
    ReplayNext => "Next move", "النقلة التالية";
    ReplayLast => "Last", "الأخيرة";
    ReplayPosition => "Move {0} of {1}", "النقلة {0} من {1}";
    StartPosition => "Start position", "وضع البداية";
    VerdictWin => "win in {0}", "فوز خلال {0}";
    VerdictLoss => "loss in {0}", "خسارة خلال {0}";
    VerdictDraw => "draw", "تعادل";
    VerdictWon => "won", "فاز";
    VerdictNone => "—", "—";
    VerdictArrow => " → ", " ← ";
    MoveNumber => "{0}.", "{0}.";
    NoMoves => "No moves were made.", "لم تُلعب أي نقلة.";
    WinSlipped => "a win slipped away", "ضاع الفوز";
    DrawSlipped => "a draw slipped away", "ضاع التعادل";
    SlipNote => "marks a move that let a win or a draw slip away.", "تعلِّم نقلةً ضاع بها فوز أو تعادل.";
    AnalysisHelp => "What the verdicts mean", "ما معنى الأحكام";
    AnalysisNote => "For each move: what perfect play promised the mover before it → after it, in moves (plies).", "لكل نقلة: ما يَعِد به اللعب المثالي صاحب النقلة قبلها ← بعدها، بعدد النقلات.";
    GameNotFound => "No finished game with that id.", "لا توجد مباراة منتهية بهذا المعرّف.";

    Points => "Points", "النقاط";
    Wins => "Wins", "فوز";
    Draws => "Draws", "تعادل";
    Losses => "Losses", "خسارة";
    GamesPlayed => "Games", "المباريات";
    RecentGames => "Recent games", "آخر المباريات";
    NoGames => "No rated games yet.", "لا مباريات مصنّفة بعد.";
    UnknownUser => "No player has that name.", "لا يوجد لاعب بهذا الاسم.";
    OutcomeWin => "won", "فاز";
    OutcomeDraw => "drew", "تعادل";
    OutcomeLoss => "lost", "خسر";

    LeaderboardTitle => "Leaderboard", "لوحة المتصدرين";
    RankCol => "Rank", "المرتبة";
    PlayerCol => "Player", "اللاعب";
    RatingCol => "Rating", "التصنيف";
    NoPlayers => "No rated players yet.", "لا لاعبين مصنّفين بعد.";

    SignInTitle => "Sign in", "تسجيل الدخول";
    RegisterTitle => "Register", "إنشاء حساب";
    Username => "Username", "اسم المستخدم";
    Password => "Password", "كلمة المرور";
    UsernameHelp => "3 to 20 letters, digits, _ or -", "من 3 إلى 20 حرفًا أو رقمًا أو _ أو -";
    PasswordHelp => "8 to 128 characters", "من 8 إلى 128 حرفًا";
    ErrUsername => "A username has 3 to 20 letters, digits, _ or -.", "اسم المستخدم من 3 إلى 20 حرفًا أو رقمًا أو _ أو -.";
    ErrPassword => "A password has 8 to 128 characters.", "كلمة المرور من 8 إلى 128 حرفًا.";
    ErrBadCredentials => "Wrong username or password.", "اسم المستخدم أو كلمة المرور غير صحيحة.";
    ErrUsernameTaken => "That username is taken.", "اسم المستخدم هذا مأخوذ.";
    ErrTooMany => "Too many attempts; try again in a minute.", "محاولات كثيرة؛ حاول بعد دقيقة.";
    ErrNetwork => "Could not reach the server.", "تعذّر الوصول إلى الخادم.";
    NoAccount => "No account yet? Register", "لا حساب لديك؟ أنشئ حسابًا";
    HaveAccount => "Have an account? Sign in", "لديك حساب؟ سجّل الدخول";
    ChangePasswordTitle => "Change password", "تغيير كلمة المرور";
    CurrentPassword => "Current password", "كلمة المرور الحالية";
    NewPassword => "New password", "كلمة المرور الجديدة";
    PasswordChanged => "Password changed. Your other devices are signed out.", "تم تغيير كلمة المرور. سُجّل خروج أجهزتك الأخرى.";
    ErrWrongPassword => "The current password is wrong.", "كلمة المرور الحالية غير صحيحة.";
    ErrStorageUnavailable => "The server cannot save right now; try again soon.", "لا يستطيع الخادم الحفظ الآن؛ حاول بعد قليل.";

    RulesTitle => "Rules and tips", "القواعد والنصائح";
    RulesXo1 => "X moves first, then the players take turns placing their mark on an empty cell.", "يبدأ X، ثم يتناوب اللاعبان على وضع علامتيهما في خانة فارغة.";
    RulesXo2 => "Three of your marks in a row, column or diagonal win at once. A full board with no line is a draw.", "ثلاث من علاماتك في صف أو عمود أو قطر تفوز فورًا. وامتلاء اللوحة دون خط تعادل.";
    TipsXo => "Tip: the centre touches four lines. Against perfect play XO is always a draw, so watch for double threats.", "نصيحة: المركز يلمس أربعة خطوط. مع اللعب المثالي تنتهي إكس أو دائمًا بالتعادل، فانتبه للتهديدات المزدوجة.";
    RulesInf1 => "As in XO, but each player keeps at most three marks. When you place a fourth, your oldest mark vanishes.", "كما في إكس أو، لكن لكل لاعب ثلاث علامات على الأكثر. عندما تضع الرابعة تختفي أقدم علاماتك.";
    RulesInf2 => "The oldest mark of the side to move glows: it is the one that vanishes next. You cannot play on it.", "تتوهّج أقدم علامة للاعب صاحب الدور: هي التي ستختفي تاليًا. لا يمكنك اللعب فوقها.";
    RulesInf3 => "You win only with the marks left after the vanishing: a line broken by it does not count.", "تفوز فقط بالعلامات الباقية بعد الاختفاء: الخط الذي ينكسر به لا يُحتسب.";
    RulesInf4 => "If the same position comes up three times, the game is a draw; everyone is warned at the second time.", "إذا تكرر الوضع نفسه ثلاث مرات فالنتيجة تعادل؛ ويُنبَّه الجميع عند المرة الثانية.";
    RulesInf5 => "Each move has a time limit; when it runs out a random move is played for you.", "لكل نقلة وقت محدد؛ وعندما ينفد تُلعب عنك نقلة عشوائية.";
    TipsInf => "Tip: plan with the glowing mark in mind. A threat that needs your oldest mark will vanish before it works.", "نصيحة: خطّط مع مراعاة العلامة المتوهجة. التهديد الذي يحتاج أقدم علاماتك سيختفي قبل أن يعمل.";
    RulesExample => "Example: X to move; X's top-left mark glows. Playing bottom centre removes it and completes the middle column.", "مثال: دور X؛ علامة X في أعلى اليسار تتوهج. اللعب في أسفل الوسط يزيلها ويكمل العمود الأوسط.";
    RulesOnline => "Rated rooms: two signed-in players; the host starts when both are ready. XO gives two minutes per move. Ratings start at 1200.", "الغرف المصنّفة: لاعبان مسجّلان؛ يبدأ المضيف عندما يكون الاثنان جاهزين. في إكس أو دقيقتان لكل نقلة. يبدأ التصنيف من 1200.";
    KeyboardHelp => "Keyboard: Tab to the board, arrow keys to move, Space or Enter to place.", "لوحة المفاتيح: Tab للوصول إلى اللوحة، والأسهم للتنقل، والمسافة أو Enter للّعب.";

    PlayFriend => "Play a friend", "العب مع صديق";
    PlayBot => "Play the bot", "العب ضد الروبوت";
    JoinFromPhone => "Join from your phone", "انضم من هاتفك";
    LiveRooms => "Live rooms", "الغرف المباشرة";
    NoLiveRooms => "No games right now.", "لا توجد مباريات الآن.";
    AttractPlaying => "Playing now", "يُلعب الآن";
    AttractResults => "Latest results", "آخر النتائج";
    AttractLeaders => "Top players", "أفضل اللاعبين";
    AttractWelcome => "Play a friend or the bot, right here", "العب مع صديق أو ضد الروبوت، هنا";
    AttractTouch => "Touch the screen to play", "المس الشاشة لتلعب";
    AttractRow => "{0}. {1} · {2}", "{0}. {1} · {2}";
    QrLabel => "QR code for {0}", "رمز QR للعنوان {0}";
    OrType => "or type {0}", "أو اكتب {0}";
    AddressPending => "Finding this kiosk's address…", "جارٍ تحديد عنوان هذا الكيوسك…";
    WifiQrLabel => "QR code to join the Wi-Fi network {0}", "رمز QR للانضمام إلى شبكة Wi-Fi {0}";
    WifiStep => "First join the Wi-Fi {0}", "انضم أولًا إلى شبكة Wi-Fi {0}";
    Bot => "Bot", "الروبوت";

    ErrBadFrame => "The server could not read a message.", "تعذّر على الخادم قراءة رسالة.";
    ErrFrameTooLarge => "A message was too large.", "كانت رسالة أكبر من اللازم.";
    ErrHelloRequired => "The connection was not set up; reconnecting.", "لم يكتمل إعداد الاتصال؛ جارٍ إعادة الاتصال.";
    ErrUnsupportedVersion => "This page is out of date: reload it.", "هذه الصفحة قديمة: أعد تحميلها.";
    ErrFlood => "Too many actions at once; slow down.", "إجراءات كثيرة دفعة واحدة؛ تمهّل.";
    ErrUnknownRoom => "That room does not exist or has closed.", "هذه الغرفة غير موجودة أو أُغلقت.";
    ErrNotInRoom => "Open a room first.", "افتح غرفة أولًا.";
    ErrKicked => "The host removed you from this room.", "أخرجك المضيف من هذه الغرفة.";
    ErrRoomClosed => "The room has closed.", "أُغلقت الغرفة.";
    ErrSignInRequired => "Sign in to play rated rooms.", "سجّل الدخول لتلعب في الغرف المصنّفة.";
    ErrNotJoinable => "This room is played on its own device; you can watch it.", "تُلعب هذه الغرفة على جهازها؛ يمكنك مشاهدتها.";
    ErrAlreadySeated => "You already sit in a room.", "أنت جالس في غرفة بالفعل.";
    ErrRoomFull => "The seat is taken.", "المقعد مشغول.";
    ErrPasscodeRequired => "This room needs a passcode.", "تحتاج هذه الغرفة إلى رمز دخول.";
    ErrWrongPasscode => "Wrong passcode.", "رمز الدخول غير صحيح.";
    ErrAlreadyRequested => "You already asked to join.", "طلبت الانضمام بالفعل.";
    ErrNoRequest => "That request is no longer pending.", "لم يعد هذا الطلب معلّقًا.";
    ErrNotHost => "Only the host can do that.", "وحده المضيف يستطيع ذلك.";
    ErrSpectator => "Spectators cannot act.", "لا يستطيع المشاهدون التصرف.";
    ErrBadSettings => "Those room settings are not valid.", "إعدادات الغرفة هذه غير صالحة.";
    ErrBadName => "A name is empty, too long or invalid.", "أحد الأسماء فارغ أو طويل جدًا أو غير صالح.";
    ErrGameNotStarted => "The game has not started.", "لم تبدأ اللعبة بعد.";
    ErrAlreadyStarted => "The game has already started.", "بدأت اللعبة بالفعل.";
    ErrGameOver => "The game is over.", "انتهت اللعبة.";
    ErrNotReady => "Both players must be ready.", "يجب أن يكون اللاعبان جاهزين.";
    ErrSeatEmpty => "Nobody is in the second seat.", "لا أحد في المقعد الثاني.";
    ErrNotYourTurn => "It is not your turn.", "ليس دورك.";
    ErrCellOccupied => "That cell is taken.", "هذه الخانة مشغولة.";
    ErrUnknownPuzzle => "There is no such puzzle.", "لا يوجد لغز كهذا.";
    ErrUnknownAttempt => "This attempt has ended: start the puzzle again.", "انتهت هذه المحاولة: ابدأ اللغز من جديد.";
    ErrNoStreak => "That streak has ended: start a new one.", "انتهت هذه السلسلة: ابدأ سلسلة جديدة.";
    NavPuzzles => "Puzzles", "الألغاز";
    DailyPuzzle => "Daily puzzle", "لغز اليوم";
    PuzzleOfDay => "Puzzle of the day", "لغز اليوم";
    PuzzleOfDayGame => "Puzzle of the day · {0}", "لغز اليوم · {0}";
    PuzzleStreakGame => "Puzzle streak · {0}", "سلسلة الألغاز · {0}";
    PuzzleGame => "Puzzle · {0}", "لغز · {0}";
    PuzzleStreak => "Puzzle streak", "سلسلة الألغاز";
    NextPuzzle => "Next puzzle", "اللغز التالي";
    PuzzleTaskWin => "{0} to move and win", "دور {0}: العب واربح";
    PuzzleTaskHold => "{0} to move: do not lose", "دور {0}: لا تخسر";
    PuzzleRight => "Right — keep going", "صحيح — تابع";
    PuzzleSolvedIn => "Solved in {0}", "حُلّ في {0}";
    PuzzleMoves => "{0} moves", "{0} نقلات";
    PuzzleOneMove => "one move", "نقلة واحدة";
    PuzzleSolvedHold => "Solved: the only move that does not lose", "حُلّ: النقلة الوحيدة التي لا تخسر";
    PuzzleWrong => "Wrong: {0} — {1}", "خطأ: {0} — {1}";
    PuzzleTooSlow => "Wrong: {0} — {1}, not the fastest", "خطأ: {0} — {1}، ليس الأسرع";
    PuzzleRefutation => "The best answer is played on the board.", "أفضل رد يُلعب على اللوحة.";
    PuzzleDistanceWin => "Best play wins in {0}", "اللعب الأمثل يفوز خلال {0}";
    PuzzleDistanceHold => "A wrong move loses in {0}", "النقلة الخاطئة تخسر خلال {0}";
    PuzzleRating => "Rating {0}", "التصنيف {0}";
    SolvedToday => "Solved today: {0}", "حلّه اليوم: {0}";
    StreakSolved => "Streak: {0} solved", "السلسلة: {0} محلولة";
    StreakOver => "Streak over: {0} solved", "انتهت السلسلة: {0} محلولة";
    StartAgain => "Start again", "ابدأ من جديد";
    Retry => "Retry", "أعد المحاولة";
    PuzzlesNone => "No puzzles right now.", "لا توجد ألغاز الآن.";
    YourPuzzleRating => "Your rating {0}", "تصنيفك {0}";
    PuzzleUnrated => "Unrated: not your first try", "غير مصنّف: ليست محاولتك الأولى";
    PuzzlesSolvedOf => "{0} of {1}", "{0} من {1}";
    BestStreak => "Best streak", "أفضل سلسلة";
    PuzzlesSolved => "Solved", "محلولة";
    PuzzlesSolvedTried => "Solved / tried", "محلولة / مجرّبة";
    RecentPuzzles => "Recent puzzles", "آخر الألغاز";
    NoPuzzlesYet => "No puzzles yet.", "لا ألغاز بعد.";
    PuzzleMissed => "Missed", "أخطأ";
    StreakBoardTitle => "Puzzle streaks", "سلاسل الألغاز";
    NoStreaks => "No streaks yet.", "لا سلاسل بعد.";
    ErrNoSuchCell => "There is no such cell.", "لا توجد خانة كهذه.";
    ErrOfferPending => "A draw offer is already pending.", "هناك عرض تعادل معلّق بالفعل.";
    ErrOfferLimit => "One draw offer per turn.", "عرض تعادل واحد في كل دور.";
    ErrNoOffer => "There is no draw offer to answer.", "لا يوجد عرض تعادل للرد عليه.";
    ErrUndoUnavailable => "Undo is only for bot and local games.", "التراجع متاح فقط في ألعاب الروبوت والألعاب المحلية.";
    ErrNothingToUndo => "Nothing to take back.", "لا شيء للتراجع عنه.";
    ErrHintUnavailable => "Hints are only for your turn against the bot.", "التلميحات متاحة فقط في دورك ضد الروبوت.";
    ErrOnlineOnly => "That is only for online rooms.", "هذا متاح فقط في الغرف عبر الإنترنت.";
    ErrSignedOut => "You were signed out.", "تم تسجيل خروجك.";
    ErrNotFinished => "The game is not over yet.", "لم تنتهِ اللعبة بعد.";
    ErrPlayAgainUnavailable => "Play again is for bot and local games.", "«العب مجددًا» متاح لألعاب الروبوت والألعاب المحلية فقط.";
    ErrTooManyRatedGames => "Too many rated games from this network in the last hour. Try again later.", "عدد كبير جدًا من المباريات المصنّفة من هذه الشبكة خلال الساعة الماضية. حاول لاحقًا.";
    ErrStorage => "The server could not save that; try again.", "تعذّر على الخادم الحفظ؛ حاول مجددًا.";
    ErrUnavailable => "The server is busy or restarting; try again soon.", "الخادم مشغول أو يعيد التشغيل؛ حاول بعد قليل.";
    SettingsTitle => "Kiosk settings", "إعدادات الكشك";
    SettingsFromCard => "These are the settings from the SD card. Saving them here overrides the card.", "هذه إعدادات بطاقة الذاكرة. حفظها هنا يتقدّم على البطاقة.";
    SettingsStored => "Saved by an owner: these override the settings on the SD card.", "حفظها مالك: هذه تتقدّم على إعدادات بطاقة الذاكرة.";
    SettingsIdle => "Idle time before the kiosk returns home (seconds, {0} to {1})", "مدة الخمول قبل عودة الكشك إلى الرئيسية (بالثواني، من {0} إلى {1})";
    SettingsUrl => "Address for phones (empty: automatic)", "العنوان للهواتف (فارغ: تلقائي)";
    SettingsUrlNote => "Automatic uses the kiosk's address on this network. Otherwise: http:// or https://, a name and an optional port.", "التلقائي يستخدم عنوان الكشك على هذه الشبكة. وإلا: ‎http://‎ أو ‎https://‎ ثم اسم ومنفذ اختياري.";
    SettingsLanguage => "Language pages open in", "لغة فتح الصفحات";
    SettingsWifi => "Guest Wi-Fi (empty name: none)", "شبكة Wi-Fi للضيوف (اسم فارغ: بلا شبكة)";
    SettingsWifiName => "Network name", "اسم الشبكة";
    SettingsWifiPassword => "Password (empty: an open network)", "كلمة المرور (فارغة: شبكة مفتوحة)";
    SettingsSave => "Save settings", "احفظ الإعدادات";
    SettingsSaved => "Saved. The kiosk uses these settings now.", "تم الحفظ. يستخدم الكشك هذه الإعدادات الآن.";
    SettingsReset => "Use the SD card's settings again", "عُد إلى إعدادات بطاقة الذاكرة";
    SettingsResetDone => "The SD card's settings are in use again.", "عادت إعدادات بطاقة الذاكرة إلى الاستخدام.";
    SettingsNotOwner => "Only an owner of the kiosk can change its settings.", "لا يغيّر إعدادات الكشك إلا مالكه.";
    ErrSettingsIdle => "The idle time must be a whole number of seconds from 10 to 3600.", "يجب أن تكون مدة الخمول عددًا صحيحًا من الثواني بين 10 و3600.";
    ErrSettingsUrl => "That address cannot be used: write http:// or https://, a name and an optional port, nothing after it.", "لا يمكن استخدام هذا العنوان: اكتب ‎http://‎ أو ‎https://‎ ثم اسمًا ومنفذًا اختياريًا، ولا شيء بعده.";
    ErrSettingsLanguage => "Choose English or Arabic.", "اختر الإنجليزية أو العربية.";
    ErrSettingsSsid => "The network name must be 1 to 32 bytes long.", "يجب أن يكون اسم الشبكة بين 1 و32 بايت.";
    ErrSettingsPassword => "The Wi-Fi password must be 8 to 63 plain letters, digits or symbols, or empty for an open network.", "يجب أن تكون كلمة مرور الشبكة من 8 إلى 63 حرفًا لاتينيًا أو رقمًا أو رمزًا، أو فارغة لشبكة مفتوحة.";
    NavEvents => "Events", "الفعاليات";
    EventsTitle => "Arena events", "فعاليات الساحة";
    EventsNone => "No events yet.", "لا توجد فعاليات بعد.";
    EventsPast => "Finished events", "الفعاليات المنتهية";
    EventStartsIn => "Starts in {0}", "تبدأ بعد {0}";
    EventLeft => "{0} left", "يتبقى {0}";
    EventEnding => "Time is up: the last games finish", "انتهى الوقت: تُستكمل آخر المباريات";
    EventCancelledTag => "Cancelled", "أُلغيت";
    EventCasual => "Casual", "ودية";
    EventPlayers => "{0} players", "اللاعبون: {0}";
    EventMore => "and {0} more", "و{0} غيرهم";
    EventScanToJoin => "Scan to join", "امسح للانضمام";
    EventPlayingNow => "Playing now", "تُلعب الآن";
    EventNoBoards => "No game right now.", "لا مباراة الآن.";
    EventStandings => "Standings", "الترتيب";
    EventNoStandings => "Nobody has joined yet.", "لم ينضم أحد بعد.";
    EventPodium => "Podium", "منصة التتويج";
    EventGames => "Games", "المباريات";
    EventNoGames => "No game was played.", "لم تُلعب أي مباراة.";
    EventColPlayer => "Player", "اللاعب";
    EventColPoints => "Pts", "نقاط";
    EventColGames => "Games", "مباريات";
    EventStreak => "{0} wins in a row: the next win scores 4", "{0} انتصارات متتالية: الفوز التالي بأربع نقاط";
    EventPoints => "{0} pts", "{0} نقطة";
    EventJoin => "Join", "انضم";
    EventPause => "Pause", "توقّف مؤقتًا";
    EventResume => "Resume", "استأنف";
    EventLeave => "Leave", "غادر";
    EventSignInToJoin => "Sign in to join", "سجّل الدخول للانضمام";
    EventYouWaiting => "You are in: waiting for an opponent…", "أنت مشارك: بانتظار خصم…";
    EventYouPlaying => "You are playing.", "أنت تلعب الآن.";
    EventYouPaused => "Paused: you are not paired until you resume.", "متوقّف مؤقتًا: لن تُقرن بخصم حتى تستأنف.";
    EventYouAway => "Away: not paired while you are offline or in another room.", "غائب: لن تُقرن وأنت غير متصل أو في غرفة أخرى.";
    EventYouLeft => "You left the event; your games still count.", "غادرت الفعالية؛ ما زالت مبارياتك تُحتسب.";
    EventToGame => "Back to your game", "عُد إلى مباراتك";
    EventPlayHere => "Play on the kiosk", "العب على الكشك";
    EventBoardBack => "Back to the event", "عُد إلى الفعالية";
    EventScoring => "Win 2, draw 1, from the third win in a row 4.", "الفوز ٢، التعادل ١، ومن الفوز الثالث المتتالي ٤.";
    EventRank => "#", "#";
    ProfileEvents => "Arena events", "فعاليات الساحة";
    ProfileEventPlace => "#{0} of {1}", "المركز {0} من {1}";
    ProfileEventOn => "still on", "ما زالت جارية";
    AnnPaired => "Paired with {0}: you are {1}", "قُرنت مع {0}: أنت {1}";
    ErrUnknownEvent => "There is no such event.", "لا توجد فعالية كهذه.";
    ErrNotInEvent => "You are not in this event.", "لست مشاركًا في هذه الفعالية.";
    ErrEventOver => "This event is over.", "انتهت هذه الفعالية.";
    ErrEventFull => "This event is full.", "هذه الفعالية ممتلئة.";
    ErrEventGame => "In an event the next game is paired for you.", "في الفعالية تُقرن مباراتك التالية تلقائيًا.";
    SettingsScreen => "When the screen sleeps", "متى تنام الشاشة";
    SettingsSleepFrom => "Sleep from (HH:MM, empty: never)", "تنام من (HH:MM، فارغ: أبدًا)";
    SettingsSleepUntil => "Until (HH:MM)", "حتى (HH:MM)";
    SettingsScreenOff => "Also sleep after this many seconds without a touch ({0}: never; 600 is ten minutes)", "ونم أيضًا بعد هذا العدد من الثواني دون لمس ({0}: أبدًا؛ 600 عشر دقائق)";
    SettingsScreenNote => "A sleeping screen is black; the next touch only wakes it. In the sleep hours it sleeps once left alone for the idle time above.", "الشاشة النائمة سوداء؛ واللمسة التالية توقظها فقط. وفي ساعات النوم تنام متى تُركت مدة الخمول أعلاه.";
    ErrSettingsSleep => "The sleep hours must be two different times of day as HH:MM (for example 23:00 and 08:00), or both empty.", "يجب أن تكون ساعات النوم وقتين مختلفين من اليوم بصيغة HH:MM (مثل 23:00 و08:00)، أو فارغين كلاهما.";
    ErrSettingsScreenOff => "The seconds before the screen sleeps must be 0 (never) or a whole number from 10 to 86400.", "يجب أن تكون الثواني قبل نوم الشاشة 0 (أبدًا) أو عددًا صحيحًا من 10 إلى 86400.";
}
}

texts! {
/// A key of the owner pages' own strings, linked only into the owner's bundle (the players'
/// download never carries them).
OT {
    Events => "Events", "الفعاليات";
    EventsHelp => "Announce an arena night, cancel a scheduled one", "أعلن أمسية ساحة، أو ألغِ فعالية مجدولة";
    New => "Announce an event", "أعلن فعالية";
    Name => "Name (optional)", "الاسم (اختياري)";
    Duration => "Duration in minutes ({0} to {1})", "المدة بالدقائق (من {0} إلى {1})";
    Start => "Start", "البدء";
    StartNow => "Now", "الآن";
    StartLater => "Later today", "لاحقًا اليوم";
    StartAt => "At", "في الساعة";
    XoClock => "XO gives two minutes per move.", "في إكس أو دقيقتان لكل نقلة.";
    Rated => "Rated: results change the players' ratings", "مصنّفة: تغيّر النتائج تصنيفات اللاعبين";
    Create => "Announce", "أعلن";
    Created => "{0} is announced.", "أُعلنت {0}.";
    Scheduled => "Scheduled and running", "المجدولة والجارية";
    None => "No event is scheduled or running.", "لا توجد فعالية مجدولة أو جارية.";
    Cancel => "Cancel event", "ألغِ الفعالية";
    CancelAsk => "Cancel {0}? Nobody can join it any more and the kiosk stops announcing it.", "أتلغي {0}؟ لن يتمكن أحد من الانضمام إليها وسيتوقف الكشك عن الإعلان عنها.";
    CancelYes => "Cancel {0}", "ألغِ {0}";
    Cancelled => "{0} was cancelled.", "أُلغيت {0}.";
    Minutes => "{0} min", "{0} دقيقة";
    StartsAt => "starts {0}", "تبدأ {0}";
    ErrDuration => "The duration must be a whole number of minutes from {0} to {1}.", "يجب أن تكون المدة عددًا صحيحًا من الدقائق بين {0} و{1}.";
    ErrStart => "Choose a time later today.", "اختر وقتًا لاحقًا اليوم.";
    ErrClash => "Another event is scheduled or running then: one event at a time.", "هناك فعالية أخرى مجدولة أو جارية في ذلك الوقت: فعالية واحدة في كل مرة.";
    ErrStarted => "That event has started: only a scheduled event can be cancelled.", "بدأت تلك الفعالية: لا تُلغى إلا فعالية لم تبدأ بعد.";
    ErrName => "The name must be one line of at most 40 characters.", "يجب أن يكون الاسم سطرًا واحدًا من 40 حرفًا على الأكثر.";
    ErrPerMove => "Choose 5, 10 or 30 seconds per move.", "اختر 5 أو 10 أو 30 ثانية لكل نقلة.";
}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_has_both_languages_with_the_same_holes() {
        let owner = OT::ALL
            .iter()
            .map(|&k| (k.get(Lang::En), k.get(Lang::Ar), format!("{k:?}")));
        let all = T::ALL
            .iter()
            .map(|&k| (k.get(Lang::En), k.get(Lang::Ar), format!("{k:?}")));
        for (en, ar, key) in all.chain(owner) {
            assert!(!en.trim().is_empty(), "{key} has no English");
            assert!(!ar.trim().is_empty(), "{key} has no Arabic");
            assert_eq!(holes(en), holes(ar), "{key} holes differ");
        }
    }

    #[test]
    fn arabic_strings_are_arabic() {
        let arabic = |s: &str| s.chars().any(|c| ('\u{0600}'..='\u{06FF}').contains(&c));
        let owner = OT::ALL
            .iter()
            .map(|&k| (k.get(Lang::En), k.get(Lang::Ar), format!("{k:?}")));
        let all = T::ALL
            .iter()
            .map(|&k| (k.get(Lang::En), k.get(Lang::Ar), format!("{k:?}")));
        for (en, ar, key) in all.chain(owner) {
            // Symbols-only strings (an em dash, an arrow between numbers) need no translation.
            let has_letters = en.chars().any(char::is_alphabetic);
            if has_letters {
                assert!(arabic(ar), "{key} is not translated: {ar}");
            }
        }
        for cell in 0..9 {
            assert!(arabic(Lang::Ar.cell(cell)));
        }
    }

    #[test]
    fn english_cell_names_are_the_spec_names() {
        assert_eq!(Lang::En.cell(0), "top left");
        assert_eq!(Lang::En.cell(4), "centre");
        assert_eq!(Lang::En.cell(8), "bottom right");
    }

    #[test]
    fn fill_replaces_numbered_holes_and_keeps_stray_braces() {
        assert_eq!(fill("{0} vs {1}", &["Sara", "Omar"]), "Sara vs Omar");
        assert_eq!(fill("{1}-{0}", &["a", "b"]), "b-a");
        assert_eq!(fill("{x} {0}", &["y"]), "{x} y");
        assert_eq!(fill("{2}", &["a"]), "");
        assert_eq!(Lang::Ar.f(T::Seconds, &["7"]), "\u{2068}7\u{2069} ث");
        assert_eq!(Lang::Ar.num(1216), "١٢١٦");
        assert_eq!(Lang::En.num(1216), "1216");
    }

    #[test]
    fn language_codes_round_trip_and_arabic_is_rtl() {
        for lang in Lang::ALL {
            assert_eq!(Lang::from_code(lang.code()), Some(lang));
        }
        assert_eq!(Lang::from_code("fr"), None);
        assert_eq!(Lang::Ar.dir(), "rtl");
        assert_eq!(Lang::En.dir(), "ltr");
    }
}
