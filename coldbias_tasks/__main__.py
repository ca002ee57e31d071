from coldbias_tasks.cli import main

raise SystemExit(main())
