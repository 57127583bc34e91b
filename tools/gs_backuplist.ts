// The gs_backuplist command (tools/backup/gs_backuplist.ts): the launcher runs tools/<name>.ts.

import './backup/gs_backuplist.ts';
