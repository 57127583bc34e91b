// The gs_backup command (tools/backup/gs_backup.ts): the launcher runs tools/<name>.ts.

import './backup/gs_backup.ts';
